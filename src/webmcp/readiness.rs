//! PR #373's readiness model: `waitForToolsUntil()`, `toolsReady`, the tools-ready state and
//! its update, and "wait for tools to be ready".
//!
//! The spec snapshot predates these algorithms; their steps follow PR #373's final revision as
//! ../DESIGN.md reconstructs it, numbered here. Where a profile switch changes a step, the
//! switch is named at that step.

use serde::Serialize;

use super::{
    PendingPromise, SETTLE_ON_REALM_DESTRUCTION, TOOLS_READY_GETTER, UPDATE_THE_TOOLS_READY_STATE,
    WAIT_FOR_TOOLS_TO_BE_READY, WAIT_FOR_TOOLS_UNTIL,
};
use crate::platform::event_loop::{ParallelStepKind, TaskAction, TaskSource, TimerKind};
use crate::platform::keys::{
    DocumentKey, ModelContextKey, NavigableKey, ObservationKey, ParallelQueueKey, PromiseKey,
    TimerKey, WaiterKey,
};
use crate::platform::origin::Origin;
use crate::platform::promise::{Handler, PromiseState};
use crate::platform::value::Value;
use crate::profile::{
    DestroyedRealmPromise, ReadinessToolchange, SettleUpdatesToolsReady, SettledPromiseCheck,
};
use crate::step;
use crate::world::World;

/// How a wait for tools to be ready ended. The spec's result is "ready" or "navigated"; the
/// engine also tells a timeout from readiness and destruction from navigation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum WaitOutcome {
    /// Every document was ready.
    Ready,
    /// The implementation-defined timeout elapsed first (the spec's result is "ready").
    TimedOut,
    /// The traversable's active document changed.
    Navigated,
    /// The traversable was destroyed (the spec's result is "navigated").
    Destroyed,
}

impl WaitOutcome {
    /// The value the spec's algorithm returns.
    pub fn spec_value(self) -> &'static str {
        match self {
            WaitOutcome::Ready | WaitOutcome::TimedOut => "ready",
            WaitOutcome::Navigated | WaitOutcome::Destroyed => "navigated",
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            WaitOutcome::Ready => "ready",
            WaitOutcome::TimedOut => "timed-out",
            WaitOutcome::Navigated => "navigated",
            WaitOutcome::Destroyed => "destroyed",
        }
    }

    pub fn parse(s: &str) -> Option<WaitOutcome> {
        Some(match s {
            "ready" => WaitOutcome::Ready,
            "timed-out" => WaitOutcome::TimedOut,
            "navigated" => WaitOutcome::Navigated,
            "destroyed" => WaitOutcome::Destroyed,
            _ => return None,
        })
    }
}

/// Who is waiting for tools to be ready, and what it does once the wait ends.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum WaitCaller {
    Observation(ObservationKey),
    GetTools {
        caller: DocumentKey,
        promise: PromiseKey,
        from_origins: Vec<Origin>,
    },
}

/// Where a waiter is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WaitState {
    Waiting,
    /// The wait has ended; its caller's queue may go on.
    Woken {
        outcome: WaitOutcome,
        seq: u64,
    },
}

/// The sequence number is left out, as for tasks (see `World::hash_state`).
impl std::hash::Hash for WaitState {
    fn hash<H: std::hash::Hasher>(&self, h: &mut H) {
        match self {
            WaitState::Waiting => 0u8.hash(h),
            WaitState::Woken { outcome, .. } => (1u8, outcome).hash(h),
        }
    }
}

/// One caller of "wait for tools to be ready" that is waiting: every caller has its own
/// timeout, and a timeout clears nothing.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Waiter {
    pub traversable: NavigableKey,
    /// Step 1's activeDocument.
    pub captured: DocumentKey,
    pub started_at: u64,
    pub deadline: TimerKey,
    pub state: WaitState,
    pub queue: ParallelQueueKey,
}

impl Waiter {
    pub(crate) fn woken_seq(&self) -> Option<u64> {
        match self.state {
            WaitState::Woken { seq, .. } => Some(seq),
            WaitState::Waiting => None,
        }
    }
}

impl World {
    /// `waitForToolsUntil(promise)` called on the `ModelContext` of `this_doc`.
    ///
    /// <https://webmachinelearning.github.io/webmcp/#dom-modelcontext-waitfortoolsuntil>
    pub fn wait_for_tools_until(&mut self, this_doc: DocumentKey, value: Value) {
        let context = self.documents[this_doc].model_context;
        // Web IDL converts the argument to Promise<any> in this's relevant realm: a native
        // promise of that realm passes through; anything else is wrapped.
        let from_realm = self.realm_of_value(&value);
        let promise = self.promise_resolve(this_doc, value.clone());
        // 1. Let document be this's relevant global object's associated Document.
        let document = this_doc;
        step!(
            self,
            WAIT_FOR_TOOLS_UNTIL,
            "1",
            Some(document),
            |w| format!(
                "argument {} converted to {}",
                w.describe_value(&value),
                w.promise_label(promise)
            )
        );
        // 2. A promise that has already settled changes nothing (switch
        //    settled-promise-check: the first revision added it anyway).
        let settled = self.promises[promise].state != PromiseState::Pending;
        if settled {
            match self.profile.settled_promise_check {
                SettledPromiseCheck::IgnoreSettled => {
                    step!(
                        self,
                        WAIT_FOR_TOOLS_UNTIL,
                        "2",
                        Some(document),
                        |w| format!("{} has already settled: return", w.promise_label(promise))
                    );
                    return;
                }
                SettledPromiseCheck::AlwaysAdd => {
                    step!(
                        self,
                        WAIT_FOR_TOOLS_UNTIL,
                        "2",
                        Some(document),
                        "already settled, added anyway (settled-promise-check=always-add)"
                    );
                }
            }
        } else {
            step!(self, WAIT_FOR_TOOLS_UNTIL, "2", Some(document), "pending");
        }
        // 3. Append promise to this's pending tool readiness promises (an ordered set).
        self.model_contexts[context]
            .pending_tool_readiness_promises
            .insert(PendingPromise {
                promise,
                from_realm,
            });
        step!(
            self,
            WAIT_FOR_TOOLS_UNTIL,
            "3",
            Some(document),
            |w| format!(
                "{} pending",
                w.model_contexts[context]
                    .pending_tool_readiness_promises
                    .len()
            )
        );
        // 4. Update the tools-ready state given document.
        step!(self, WAIT_FOR_TOOLS_UNTIL, "4", Some(document));
        self.update_the_tools_ready_state(document);
        // 5. settleSteps: remove promise from the set, then update the tools-ready state (see
        //    `wait_for_tools_until_settle_steps`).
        step!(self, WAIT_FOR_TOOLS_UNTIL, "5", Some(document));
        // 6. React to promise, both branches running settleSteps. The reaction's handlers
        //    belong to this's relevant realm.
        let settle = Handler::WaitForToolsSettle { context, promise };
        self.perform_promise_then(promise, settle.clone(), settle, None);
        step!(self, WAIT_FOR_TOOLS_UNTIL, "6", Some(document));
    }

    /// The realm a value came from, for the destroyed-realm-promise switch.
    fn realm_of_value(&self, value: &Value) -> Option<DocumentKey> {
        match value {
            Value::Promise(p) => Some(self.promises[*p].realm),
            Value::Thenable(t) => Some(self.thenables[*t].realm),
            _ => None,
        }
    }

    /// waitForToolsUntil() step 6.1 / 6.2, running step 5's settleSteps.
    pub(crate) fn wait_for_tools_until_settle_steps(
        &mut self,
        context: ModelContextKey,
        promise: PromiseKey,
        fulfilled: bool,
    ) {
        let document = self.model_contexts[context].document;
        if fulfilled {
            step!(
                self,
                WAIT_FOR_TOOLS_UNTIL,
                "6.1",
                Some(document),
                |w| format!("{} fulfilled", w.promise_label(promise))
            );
        } else {
            step!(
                self,
                WAIT_FOR_TOOLS_UNTIL,
                "6.2",
                Some(document),
                |w| format!("{} rejected", w.promise_label(promise))
            );
        }
        self.settle_steps(context, promise);
    }

    /// waitForToolsUntil() step 5's settleSteps.
    fn settle_steps(&mut self, context: ModelContextKey, promise: PromiseKey) {
        let document = self.model_contexts[context].document;
        // 5.1. Remove promise from the pending tool readiness promises.
        self.model_contexts[context]
            .pending_tool_readiness_promises
            .remove(promise);
        step!(
            self,
            WAIT_FOR_TOOLS_UNTIL,
            "5.1",
            Some(document),
            |w| format!(
                "{} removed; {} pending",
                w.promise_label(promise),
                w.model_contexts[context]
                    .pending_tool_readiness_promises
                    .len()
            )
        );
        // 5.2. Update the tools-ready state, whether or not the document is fully active
        //      (switch settle-updates-tools-ready: the first revision only did it while fully
        //      active).
        match self.profile.settle_updates_tools_ready {
            SettleUpdatesToolsReady::Always => {
                step!(self, WAIT_FOR_TOOLS_UNTIL, "5.2", Some(document));
                self.update_the_tools_ready_state(document);
            }
            SettleUpdatesToolsReady::IfFullyActive => {
                if self.is_fully_active(document) {
                    step!(self, WAIT_FOR_TOOLS_UNTIL, "5.2", Some(document));
                    self.update_the_tools_ready_state(document);
                } else {
                    step!(self, WAIT_FOR_TOOLS_UNTIL, "5.2", Some(document),
                        "not fully active: tools-ready left as it is (settle-updates-tools-ready=if-fully-active)");
                }
            }
        }
    }

    /// <https://webmachinelearning.github.io/webmcp/#update-the-tools-ready-state>
    pub fn update_the_tools_ready_state(&mut self, document: DocumentKey) {
        // 1. Let context be document's associated ModelContext.
        let context = self.documents[document].model_context;
        step!(self, UPDATE_THE_TOOLS_READY_STATE, "1", Some(document));
        // 2. tools-ready is true exactly when the pending set is empty (switch
        //    tools-ready-lifecycle: and the document has reached the stage it names).
        let old = self.documents[document].tools_ready;
        let ready = self.model_contexts[context]
            .pending_tool_readiness_promises
            .is_empty()
            && self.lifecycle_allows_ready(document);
        self.set_tools_ready(document, ready);
        step!(
            self,
            UPDATE_THE_TOOLS_READY_STATE,
            "2",
            Some(document),
            "tools-ready {old} -> {ready}"
        );
        if old == ready {
            return;
        }
        match self.profile.readiness_toolchange {
            ReadinessToolchange::None => {}
            // 3. (readiness-toolchange=ready-events, the first revision) A change in a fully
            //    active document is notified in parallel, as if exposed to every origin.
            ReadinessToolchange::ReadyEvents => {
                if self.is_fully_active(document) {
                    step!(
                        self,
                        UPDATE_THE_TOOLS_READY_STATE,
                        "3",
                        Some(document),
                        "notify ToolChangeEvent ready={ready}"
                    );
                    self.notify_readiness_in_parallel(document, ready);
                } else {
                    step!(
                        self,
                        UPDATE_THE_TOOLS_READY_STATE,
                        "3",
                        Some(document),
                        "not fully active: not notified"
                    );
                }
            }
            // 4. (readiness-toolchange=coalesced, the reviewer's proposal) Queue one task that
            //    compares tools-ready with the last state notified.
            ReadinessToolchange::Coalesced => {
                if !self.model_contexts[context].readiness_check_queued {
                    self.model_contexts[context].readiness_check_queued = true;
                    step!(
                        self,
                        UPDATE_THE_TOOLS_READY_STATE,
                        "4",
                        Some(document),
                        "queue the comparison task"
                    );
                    self.queue_global_task(
                        document,
                        TaskSource::Webmcp,
                        TaskAction::CoalescedReadinessCheck,
                    );
                } else {
                    step!(
                        self,
                        UPDATE_THE_TOOLS_READY_STATE,
                        "4",
                        Some(document),
                        "comparison task already queued"
                    );
                }
            }
        }
    }

    /// Step 4's queued task (readiness-toolchange=coalesced).
    pub(crate) fn coalesced_readiness_check(&mut self, document: DocumentKey) {
        let context = self.documents[document].model_context;
        self.model_contexts[context].readiness_check_queued = false;
        let ready = self.documents[document].tools_ready;
        // 4.1. Nothing to tell when the state is the one last notified.
        if ready == self.model_contexts[context].last_notified_ready {
            step!(
                self,
                UPDATE_THE_TOOLS_READY_STATE,
                "4.1",
                Some(document),
                "tools-ready {ready} was already notified: nothing fires"
            );
            return;
        }
        step!(self, UPDATE_THE_TOOLS_READY_STATE, "4.1", Some(document));
        // 4.2. Remember it.
        self.model_contexts[context].last_notified_ready = ready;
        step!(self, UPDATE_THE_TOOLS_READY_STATE, "4.2", Some(document));
        // 4.3. Notify, in parallel, as if exposed to every origin.
        step!(
            self,
            UPDATE_THE_TOOLS_READY_STATE,
            "4.3",
            Some(document),
            "notify ToolChangeEvent ready={ready}"
        );
        self.notify_readiness_in_parallel(document, ready);
    }

    /// A readiness change notified in parallel, as if exposed to every origin, with a
    /// `ToolChangeEvent` carrying `ready` (steps 3 and 4.3).
    fn notify_readiness_in_parallel(&mut self, document: DocumentKey, ready: bool) {
        self.in_parallel(
            format!("readiness of {}", self.label(document)),
            vec![ParallelStepKind::NotifyDocumentsOfAToolChange {
                tool_owner: document,
                exposed: super::Exposure::All,
                ready: Some(ready),
            }],
        );
    }

    /// Sets a document's tools-ready, keeping its traversable's count of not-ready documents.
    fn set_tools_ready(&mut self, document: DocumentKey, ready: bool) {
        if self.documents[document].tools_ready == ready {
            return;
        }
        self.documents[document].tools_ready = ready;
        if self.is_fully_active(document) {
            let t = self.traversable_of(document);
            let n = &mut self.navigables[t].not_ready;
            if ready {
                *n = n.saturating_sub(1);
            } else {
                *n += 1;
            }
        }
    }

    /// The `toolsReady` getter of the `ModelContext` of `this_doc`.
    ///
    /// <https://webmachinelearning.github.io/webmcp/#dom-modelcontext-toolsready>
    pub fn tools_ready_getter(&mut self, this_doc: DocumentKey) -> bool {
        // 1. Return this's relevant global object's associated Document's tools-ready.
        let ready = self.documents[this_doc].tools_ready;
        step!(self, TOOLS_READY_GETTER, "1", Some(this_doc), "{ready}");
        ready
    }

    /// A document's tools-ready, read by the harness (no step is recorded).
    pub fn tools_ready(&self, doc: DocumentKey) -> bool {
        self.documents[doc].tools_ready
    }

    /// How many promises are in a document's pending tool readiness promises.
    pub fn pending_tool_readiness_promises(&self, doc: DocumentKey) -> usize {
        self.model_context(doc)
            .pending_tool_readiness_promises
            .len()
    }

    /// Step 2's areAllReady, as the spec writes it: every document of activeDocument's
    /// inclusive descendant navigables has tools-ready true.
    pub fn are_all_ready(&self, active_document: DocumentKey) -> bool {
        self.every_inclusive_descendant_document(active_document, &mut |d| {
            self.documents[d].tools_ready
        })
    }

    /// Recomputes a traversable's count of fully active documents whose tools are not ready,
    /// after its tree changed. The count answers areAllReady without walking the tree, so
    /// that a wait costs the same however many settles happen during it.
    pub(crate) fn recount_not_ready(&mut self, traversable: NavigableKey) {
        let t = &self.navigables[traversable];
        let mut count = 0;
        if let (Some(top), false) = (t.active_document, t.destroyed) {
            self.every_inclusive_descendant_document(top, &mut |d| {
                count += u32::from(!self.documents[d].tools_ready);
                true
            });
        }
        self.navigables[traversable].not_ready = count;
    }

    /// Whether the readiness index agrees with the spec's loop for every traversable (a
    /// property tests check after every step).
    pub fn readiness_index_is_consistent(&self) -> bool {
        self.navigables.iter().all(|(_, n)| {
            if n.parent.is_some() || n.destroyed {
                return true;
            }
            match n.active_document {
                Some(top) => (n.not_ready == 0) == self.are_all_ready(top),
                None => true,
            }
        })
    }

    /// <https://webmachinelearning.github.io/webmcp/#wait-for-tools-to-be-ready>, run on
    /// parallel queue `queue`. Returns the outcome when the wait ends at once; otherwise the
    /// queue blocks and `caller` goes on when the wait ends.
    pub(crate) fn wait_for_tools_to_be_ready(
        &mut self,
        traversable: NavigableKey,
        queue: ParallelQueueKey,
        caller: WaitCaller,
    ) -> Option<WaitOutcome> {
        // 1. Let activeDocument be traversable's active document, captured up front.
        let Some(active_document) = self.navigables[traversable].active_document else {
            self.finding(&WAIT_FOR_TOOLS_TO_BE_READY, "1", None,
                "the traversable has no active document (it was destroyed before the wait began): areAllReady cannot be evaluated".into());
            return Some(WaitOutcome::Destroyed);
        };
        step!(self, WAIT_FOR_TOOLS_TO_BE_READY, "1", Some(active_document));
        // 2. areAllReady: every document of activeDocument's inclusive descendant navigables
        //    has tools-ready true.
        step!(self, WAIT_FOR_TOOLS_TO_BE_READY, "2", Some(active_document));
        let mut all_ready = true;
        for navigable in self.inclusive_descendant_navigables(active_document) {
            let Some(d) = self.navigables[navigable].active_document else {
                continue;
            };
            if !self.documents[d].tools_ready {
                step!(
                    self,
                    WAIT_FOR_TOOLS_TO_BE_READY,
                    "2.1",
                    Some(d),
                    "tools-ready is false"
                );
                all_ready = false;
                break;
            }
        }
        if all_ready {
            step!(
                self,
                WAIT_FOR_TOOLS_TO_BE_READY,
                "2.2",
                Some(active_document)
            );
        }
        // 3. Ready now: return "ready".
        if all_ready {
            step!(
                self,
                WAIT_FOR_TOOLS_TO_BE_READY,
                "3",
                Some(active_document),
                "ready"
            );
            return Some(WaitOutcome::Ready);
        }
        step!(
            self,
            WAIT_FOR_TOOLS_TO_BE_READY,
            "3",
            Some(active_document),
            "not ready"
        );
        // 4. Wait until ready, the implementation-defined timeout elapses, the traversable's
        //    active document changes, or the traversable is destroyed.
        let timeout = self.profile.tools_ready_timeout_ms;
        let now = self.now;
        let waiter = self.waiters.insert(Waiter {
            traversable,
            captured: active_document,
            started_at: now,
            deadline: TimerKey::default(),
            state: WaitState::Waiting,
            queue,
        });
        self.waiters[waiter].deadline = self.add_timer(timeout, TimerKind::WaitDeadline { waiter });
        step!(
            self,
            WAIT_FOR_TOOLS_TO_BE_READY,
            "4",
            Some(active_document),
            "waiting, timeout {timeout} ms"
        );
        let q = &mut self.parallel_queues[queue];
        q.waiting_on = Some(waiter);
        let seq = {
            self.seq += 1;
            self.seq
        };
        self.parallel_queues[queue]
            .steps
            .push_front(crate::platform::event_loop::ParallelStep {
                seq,
                kind: ParallelStepKind::AfterWait { caller },
            });
        None
    }

    /// Re-evaluates every waiting waiter's condition after a unit of work or a harness action.
    pub(crate) fn check_waiters(&mut self) {
        if self.waiters.is_empty() {
            return;
        }
        let waiting: Vec<WaiterKey> = self
            .waiters
            .iter()
            .filter(|(_, w)| w.state == WaitState::Waiting)
            .map(|(k, _)| k)
            .collect();
        for key in waiting {
            let w = &self.waiters[key];
            let t = &self.navigables[w.traversable];
            let outcome = if t.destroyed {
                Some(WaitOutcome::Destroyed)
            } else if t.active_document != Some(w.captured) {
                Some(WaitOutcome::Navigated)
            } else if t.not_ready == 0 {
                Some(WaitOutcome::Ready)
            } else {
                None
            };
            if let Some(outcome) = outcome {
                let seq = self.next_seq();
                self.waiters[key].state = WaitState::Woken { outcome, seq };
            }
        }
    }

    /// A waiter's deadline timer expired.
    pub(crate) fn wait_timed_out(&mut self, waiter: WaiterKey) {
        if let Some(w) = self.waiters.get(waiter) {
            if w.state == WaitState::Waiting {
                let seq = self.next_seq();
                self.waiters[waiter].state = WaitState::Woken {
                    outcome: WaitOutcome::TimedOut,
                    seq,
                };
            }
        }
    }

    /// Steps 5-6: the wait has ended; its timer and record go away.
    pub(crate) fn finish_wait(&mut self, waiter: WaiterKey) -> WaitOutcome {
        let Some(w) = self.waiters.remove(waiter) else {
            return WaitOutcome::Ready;
        };
        self.remove_timer(w.deadline);
        let outcome = match w.state {
            WaitState::Woken { outcome, .. } => outcome,
            WaitState::Waiting => WaitOutcome::TimedOut,
        };
        let waited = self.now - w.started_at;
        match outcome {
            WaitOutcome::Navigated | WaitOutcome::Destroyed => {
                // 5. The traversable was navigated or destroyed: return "navigated".
                step!(
                    self,
                    WAIT_FOR_TOOLS_TO_BE_READY,
                    "5",
                    Some(w.captured),
                    "{} after {waited} ms: return \"navigated\"",
                    outcome.name()
                );
            }
            WaitOutcome::Ready | WaitOutcome::TimedOut => {
                step!(self, WAIT_FOR_TOOLS_TO_BE_READY, "5", Some(w.captured));
                // 6. Return "ready" (after readiness or the timeout).
                step!(
                    self,
                    WAIT_FOR_TOOLS_TO_BE_READY,
                    "6",
                    Some(w.captured),
                    "{} after {waited} ms: return \"ready\"",
                    outcome.name()
                );
            }
        }
        outcome
    }

    /// The caller of a wait goes on.
    pub(crate) fn continue_after_wait(
        &mut self,
        _queue: ParallelQueueKey,
        caller: WaitCaller,
        outcome: WaitOutcome,
    ) {
        match caller {
            WaitCaller::Observation(o) => self.observation_after_wait(o, outcome),
            WaitCaller::GetTools {
                caller,
                promise,
                from_origins,
            } => self.get_tools_collect(caller, promise, &from_origins),
        }
    }

    /// How many waits for tools to be ready are under way.
    pub fn live_waiters(&self) -> usize {
        self.waiters.len()
    }

    /// What a document's destruction does beyond the platform: Chromium's
    /// PendingWaitForTools counts a promise whose realm is destroyed as settled
    /// (destroyed-realm-promise=settled-on-destroy); under the spec it never settles.
    pub(crate) fn document_destroyed(&mut self, doc: DocumentKey) {
        self.executions_lose_document(doc);
        if self.profile.destroyed_realm_promise != DestroyedRealmPromise::SettledOnDestroy {
            return;
        }
        let affected: Vec<(ModelContextKey, PromiseKey)> = self
            .model_contexts
            .iter()
            .flat_map(|(k, c)| {
                c.pending_tool_readiness_promises
                    .iter()
                    .filter(|p| p.from_realm == Some(doc))
                    .map(move |p| (k, p.promise))
            })
            .collect();
        if affected.is_empty() {
            return;
        }
        // 1. Every pending promise that came from the destroyed realm...
        step!(
            self,
            SETTLE_ON_REALM_DESTRUCTION,
            "1",
            Some(doc),
            "{} promise(s) came from it",
            affected.len()
        );
        for (context, promise) in affected {
            // 2. ...is counted as settled: settleSteps run for it.
            let owner = self.model_contexts[context].document;
            step!(
                self,
                SETTLE_ON_REALM_DESTRUCTION,
                "2",
                Some(owner),
                |w| format!("{} counted as settled", w.promise_label(promise))
            );
            self.settle_steps(context, promise);
        }
    }
}
