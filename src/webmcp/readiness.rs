//! PR #373's readiness model: `waitForToolsUntil()`, `toolsReady`, the tools-ready state and
//! its update, and "wait for tools to be ready".
//!
//! The published text predates these algorithms; their steps follow PR #373's final revision
//! as the review in ../shared/seeds shows it, numbered as the PR numbers them. Where a switch
//! selects the first revision or a proposal, the step is recorded in that text's table
//! ([`super::algorithms`]) and the switch is named at that step.

use serde::Serialize;

use super::get_tools::GetTools;
use super::observation::Observations;
use super::steps::{ParallelStep, ReactionStep, TaskStep, TimerStep};
use super::switches::{
    DestroyedRealmPromise, ReadinessToolchange, SettleUpdatesToolsReady, SettledPromiseCheck,
    ToolsReadyLifecycle,
};
use super::{
    Exposure, ModelContextKey, ObservationKey, PendingPromise, WaiterKey, WebMcpHost,
    ABANDON_AN_OBSERVATION, DOCUMENT_LIFECYCLE, SETTLE_ON_REALM_DESTRUCTION, TOOLS_READY_GETTER,
    UPDATE_THE_TOOLS_READY_STATE, UPDATE_THE_TOOLS_READY_STATE_COALESCED,
    UPDATE_THE_TOOLS_READY_STATE_R1, WAIT_FOR_TOOLS_TO_BE_READY, WAIT_FOR_TOOLS_UNTIL,
};
use crate::host::event_loop::{EventLoops, TaskAction, TaskSource};
use crate::host::keys::{DocumentKey, NavigableKey, ParallelQueueKey, PromiseKey, TimerKey};
use crate::host::navigable::Lifecycle;
use crate::host::origin::Origin;
use crate::host::parallel::ParallelStepKind;
use crate::host::promise::{Handler, PromiseState, Promises};
use crate::host::shared::footprint;
use crate::host::timers::TimerKind;
use crate::host::value::Value;
use crate::step;

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

/// One caller of "wait for tools to be ready" that is waiting: every caller has its own
/// timeout, and a timeout clears nothing.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Waiter {
    pub traversable: NavigableKey,
    /// Step 1's activeDocument.
    pub captured: DocumentKey,
    pub started_at: u64,
    pub deadline: TimerKey,
    /// How the wait ended, once it has (its queue then goes on).
    pub outcome: Option<WaitOutcome>,
    pub queue: ParallelQueueKey,
}

/// How "wait for tools to be ready" was called: to begin (steps 1-4), or to go on once the
/// wait of step 4 has ended (steps 5-6).
pub enum WaitPhase {
    Begin {
        traversable: NavigableKey,
        queue: ParallelQueueKey,
        caller: WaitCaller,
    },
    Resume {
        waiter: WaiterKey,
    },
}

/// PR #373's readiness algorithms.
pub trait Readiness: WebMcpHost {
    /// `waitForToolsUntil(promise)` called on the `ModelContext` of `this_doc`.
    ///
    /// <https://webmachinelearning.github.io/webmcp/#dom-modelcontext-waitfortoolsuntil>
    fn wait_for_tools_until(&mut self, this_doc: DocumentKey, value: Value) {
        let context = self.context_of(this_doc);
        // Web IDL converts the argument to Promise<any> in this's relevant realm: always a new
        // promise resolved with the value (switch idl-promise-conversion: PromiseResolve, or
        // browsers' bindings, pass a native promise through).
        let from_realm = self.realm_of_value(&value);
        let promise = self.convert_to_idl_promise(this_doc, value.clone());
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
            match self.switches().settled_promise_check {
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
        self.webmcp_mut().pending_tool_readiness_promises[context].insert(PendingPromise {
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
                w.webmcp().pending_tool_readiness_promises[context].len()
            )
        );
        // 4. Update the tools-ready state given document.
        step!(self, WAIT_FOR_TOOLS_UNTIL, "4", Some(document));
        self.update_the_tools_ready_state(document);
        // 5. settleSteps: remove promise from the set, then update the tools-ready state (see
        //    `settle_steps`).
        step!(self, WAIT_FOR_TOOLS_UNTIL, "5", Some(document));
        // 6. React to promise, both branches running settleSteps. The reaction's handlers
        //    belong to this's relevant realm.
        let settle = Handler::Webmcp {
            realm: document,
            step: ReactionStep::WaitForToolsSettle { context, promise },
        };
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
    fn wait_for_tools_until_settle_steps(
        &mut self,
        context: ModelContextKey,
        promise: PromiseKey,
        fulfilled: bool,
    ) {
        let document = self.document_of(context);
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
        let document = self.document_of(context);
        // 5.1. Remove promise from the pending tool readiness promises.
        self.webmcp_mut().pending_tool_readiness_promises[context].remove(promise);
        step!(
            self,
            WAIT_FOR_TOOLS_UNTIL,
            "5.1",
            Some(document),
            |w| format!(
                "{} removed; {} pending",
                w.promise_label(promise),
                w.webmcp().pending_tool_readiness_promises[context].len()
            )
        );
        // 5.2. Update the tools-ready state, whether or not the document is fully active
        //      (switch settle-updates-tools-ready: the first revision only did it while fully
        //      active).
        match self.switches().settle_updates_tools_ready {
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

    /// <https://webmachinelearning.github.io/webmcp/#update-the-tools-ready-state>. The
    /// readiness-toolchange switch decides which text runs: the final revision (no event), the
    /// first revision (a `ToolChangeEvent` in parallel), or the coalesced proposal (a task that
    /// compares); each records its own steps.
    fn update_the_tools_ready_state(&mut self, document: DocumentKey) {
        let alg = match self.switches().readiness_toolchange {
            ReadinessToolchange::None => &UPDATE_THE_TOOLS_READY_STATE,
            ReadinessToolchange::ReadyEvents => &UPDATE_THE_TOOLS_READY_STATE_R1,
            ReadinessToolchange::Coalesced => &UPDATE_THE_TOOLS_READY_STATE_COALESCED,
        };
        // 1. Let context be document's associated ModelContext.
        let context = self.context_of(document);
        self.record_step(alg, 0, Some(document), |_| String::new());
        // 2. tools-ready is true exactly when the pending set is empty (switch
        //    tools-ready-lifecycle: and the document has reached the stage it names).
        let old = self.tools_ready(document);
        let ready = self.webmcp().pending_tool_readiness_promises[context].is_empty()
            && self.lifecycle_allows_ready(document);
        self.set_tools_ready(document, ready);
        self.record_step(alg, 1, Some(document), |_| {
            format!("tools-ready {old} -> {ready}")
        });
        if old == ready {
            return;
        }
        match self.switches().readiness_toolchange {
            ReadinessToolchange::None => {}
            // 3. (first revision) A change in a fully active document is notified in parallel,
            //    as if exposed to every origin.
            ReadinessToolchange::ReadyEvents => {
                if self.is_fully_active(document) {
                    step!(
                        self,
                        UPDATE_THE_TOOLS_READY_STATE_R1,
                        "3",
                        Some(document),
                        "notify ToolChangeEvent ready={ready}"
                    );
                    self.notify_readiness_in_parallel(document, ready);
                } else {
                    step!(
                        self,
                        UPDATE_THE_TOOLS_READY_STATE_R1,
                        "3",
                        Some(document),
                        "not fully active: not notified"
                    );
                }
            }
            // 3. (coalesced proposal) Queue one task that compares tools-ready with the last
            //    state notified (see `coalesced_readiness_check`).
            ReadinessToolchange::Coalesced => {
                if !self.webmcp().model_contexts[context].readiness_check_queued {
                    self.webmcp_mut().model_contexts[context].readiness_check_queued = true;
                    step!(
                        self,
                        UPDATE_THE_TOOLS_READY_STATE_COALESCED,
                        "3",
                        Some(document),
                        "queue the comparison task"
                    );
                    self.queue_global_task(
                        document,
                        TaskSource::Webmcp,
                        TaskAction::Webmcp(TaskStep::CoalescedReadinessCheck),
                    );
                } else {
                    step!(
                        self,
                        UPDATE_THE_TOOLS_READY_STATE_COALESCED,
                        "3",
                        Some(document),
                        "comparison task already queued"
                    );
                }
            }
        }
    }

    /// The coalesced proposal's queued task (steps 3.1-3.3).
    fn coalesced_readiness_check(&mut self, document: DocumentKey) {
        let context = self.context_of(document);
        self.webmcp_mut().model_contexts[context].readiness_check_queued = false;
        let ready = self.tools_ready(document);
        // 3.1. Nothing to tell when the state is the one last notified.
        if ready == self.webmcp().model_contexts[context].last_notified_ready {
            step!(
                self,
                UPDATE_THE_TOOLS_READY_STATE_COALESCED,
                "3.1",
                Some(document),
                "tools-ready {ready} was already notified: nothing fires"
            );
            return;
        }
        step!(
            self,
            UPDATE_THE_TOOLS_READY_STATE_COALESCED,
            "3.1",
            Some(document)
        );
        // 3.2. Remember it.
        self.webmcp_mut().model_contexts[context].last_notified_ready = ready;
        step!(
            self,
            UPDATE_THE_TOOLS_READY_STATE_COALESCED,
            "3.2",
            Some(document)
        );
        // 3.3. Notify, in parallel, as if exposed to every origin.
        step!(
            self,
            UPDATE_THE_TOOLS_READY_STATE_COALESCED,
            "3.3",
            Some(document),
            "notify ToolChangeEvent ready={ready}"
        );
        self.notify_readiness_in_parallel(document, ready);
    }

    /// A readiness change notified in parallel, as if exposed to every origin, with a
    /// `ToolChangeEvent` carrying `ready`.
    fn notify_readiness_in_parallel(&mut self, document: DocumentKey, ready: bool) {
        let label = format!("readiness of {}", self.label(document));
        self.in_parallel(
            label,
            vec![ParallelStepKind::Webmcp(
                ParallelStep::NotifyDocumentsOfAToolChange {
                    tool_owner: document,
                    exposed: Exposure::All,
                    ready: Some(ready),
                },
            )],
        );
    }

    /// Sets a document's tools-ready, keeping its traversable's count of not-ready documents.
    fn set_tools_ready(&mut self, document: DocumentKey, ready: bool) {
        if self.tools_ready(document) == ready {
            return;
        }
        self.webmcp_mut().tools_ready[document] = ready;
        self.journal.document(document);
        if self.is_fully_active(document) {
            let t = self.traversable_of(document);
            self.webmcp_mut()
                .not_ready
                .add(t, if ready { -1 } else { 1 });
        }
    }

    /// The `toolsReady` getter of the `ModelContext` of `this_doc`.
    ///
    /// <https://webmachinelearning.github.io/webmcp/#dom-modelcontext-toolsready>
    fn tools_ready_getter(&mut self, this_doc: DocumentKey) -> bool {
        // 1. Return this's relevant global object's associated Document's tools-ready.
        let ready = self.tools_ready(this_doc);
        step!(self, TOOLS_READY_GETTER, "1", Some(this_doc), "{ready}");
        ready
    }

    /// A document's tools-ready, read by the harness (no step is recorded).
    fn tools_ready(&self, doc: DocumentKey) -> bool {
        self.webmcp().tools_ready[doc]
    }

    /// How many promises are in a document's pending tool readiness promises.
    fn pending_tool_readiness_promises(&self, doc: DocumentKey) -> usize {
        self.pending_set(doc).len()
    }

    /// Step 2's areAllReady, as the text writes it: every document of activeDocument's
    /// inclusive descendant navigables has tools-ready true.
    fn are_all_ready(&self, active_document: DocumentKey) -> bool {
        self.every_inclusive_descendant_document(active_document, &mut |d| self.tools_ready(d))
    }

    /// Recomputes a traversable's count of fully active documents whose tools are not ready,
    /// after its tree changed. The count answers areAllReady without walking the tree, so
    /// that a wait costs the same however many settles happen during it.
    fn recount_not_ready(&mut self, traversable: NavigableKey) {
        let t = &self.navigables[traversable];
        let mut count = 0;
        if let (Some(top), false) = (t.active_document, t.destroyed) {
            self.every_inclusive_descendant_document(top, &mut |d| {
                count += u32::from(!self.tools_ready(d));
                true
            });
        }
        self.webmcp_mut().not_ready.set(traversable, count);
    }

    /// Counts a document just added to a traversable's tree, fully active, in its count of
    /// documents whose tools are not ready (the rest of the tree is as it was).
    fn count_added_document(&mut self, traversable: NavigableKey, doc: DocumentKey) {
        let not_ready = i64::from(!self.tools_ready(doc));
        self.webmcp_mut().not_ready.add(traversable, not_ready);
    }

    /// The readiness index's answer to areAllReady for a traversable.
    fn index_says_ready(&self, traversable: NavigableKey) -> bool {
        self.webmcp().not_ready.is_zero(traversable)
    }

    /// Whether the readiness index agrees with the text's loop for every traversable (a
    /// property tests check after every step).
    fn readiness_index_is_consistent(&self) -> bool {
        self.navigables.iter().all(|(k, n)| {
            if n.parent.is_some() || n.destroyed {
                return true;
            }
            match n.active_document {
                Some(top) => self.index_says_ready(k) == self.are_all_ready(top),
                None => true,
            }
        })
    }

    /// <https://webmachinelearning.github.io/webmcp/#wait-for-tools-to-be-ready>, run on the
    /// caller's parallel queue. Step 4's wait suspends that queue: called to `Begin`, it runs
    /// steps 1-4 and returns the outcome if the wait ended at once (`None`: the queue now
    /// waits, and goes on with the caller's `AfterWait` step); called to `Resume` once the
    /// wait has ended, it runs steps 5-6.
    fn wait_for_tools_to_be_ready(&mut self, phase: WaitPhase) -> Option<WaitOutcome> {
        let waiter = match phase {
            WaitPhase::Begin {
                traversable,
                queue,
                caller,
            } => {
                // 1. Let activeDocument be traversable's active document, captured up front.
                let Some(active_document) = self.navigables[traversable].active_document else {
                    self.finding(&WAIT_FOR_TOOLS_TO_BE_READY, "1", None,
                        "the traversable has no active document (it was destroyed before the wait began): areAllReady cannot be evaluated".into());
                    return Some(WaitOutcome::Destroyed);
                };
                step!(self, WAIT_FOR_TOOLS_TO_BE_READY, "1", Some(active_document));
                // 2. areAllReady: every document of activeDocument's inclusive descendant
                //    navigables has tools-ready true.
                step!(self, WAIT_FOR_TOOLS_TO_BE_READY, "2", Some(active_document));
                let documents: Vec<DocumentKey> = self
                    .inclusive_descendant_navigables(active_document)
                    .into_iter()
                    .filter_map(|navigable| self.navigables[navigable].active_document)
                    .collect();
                // For the explorer (see `footprint`), the step notes what decides its answer:
                // a document found not ready alone (while it is not ready the answer is false
                // whatever the others are, and the wait begins the same way; which document
                // the trace names is not state), or, when every one is ready, all of them.
                let not_ready = footprint::untracked(|| {
                    documents.iter().copied().find(|&d| !self.tools_ready(d))
                });
                match not_ready {
                    Some(d) => {
                        let _ = self.tools_ready(d);
                        step!(
                            self,
                            WAIT_FOR_TOOLS_TO_BE_READY,
                            "2.1",
                            Some(d),
                            "tools-ready is false"
                        );
                    }
                    None => {
                        for &d in &documents {
                            let _ = self.tools_ready(d);
                        }
                        step!(
                            self,
                            WAIT_FOR_TOOLS_TO_BE_READY,
                            "2.2",
                            Some(active_document)
                        );
                    }
                }
                let all_ready = not_ready.is_none();
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
                // 4. Wait until areAllReady is true, the implementation-defined timeout has
                //    elapsed, the traversable's active document is no longer activeDocument,
                //    or the traversable is destroyed. Each caller has its own timeout. The
                //    condition is re-checked whenever the world changes (`check_waiters`).
                let timeout = self.switches().tools_ready_timeout_ms;
                let now = self.now;
                let waiter = self.webmcp_mut().waiters.insert(Waiter {
                    traversable,
                    captured: active_document,
                    started_at: now,
                    deadline: TimerKey::default(),
                    outcome: None,
                    queue,
                });
                self.webmcp_mut().journal_waiter(waiter);
                let deadline = self.add_timer(
                    timeout,
                    TimerKind::Webmcp(TimerStep::WaitDeadline { waiter }),
                );
                self.webmcp_mut().waiters[waiter].deadline = deadline;
                step!(
                    self,
                    WAIT_FOR_TOOLS_TO_BE_READY,
                    "4",
                    Some(active_document),
                    "waiting, timeout {timeout} ms"
                );
                self.wait_until(queue, ParallelStep::AfterWait { caller, waiter });
                return None;
            }
            WaitPhase::Resume { waiter } => waiter,
        };
        // The wait of step 4 has ended: its timer and record go away.
        self.webmcp_mut().journal_waiter(waiter);
        let Some(w) = self.webmcp_mut().waiters.remove(waiter) else {
            self.finding(
                &WAIT_FOR_TOOLS_TO_BE_READY,
                "4",
                None,
                "a parallel queue resumed a wait for tools to be ready that is not under way"
                    .into(),
            );
            return None;
        };
        self.remove_timer(w.deadline);
        let Some(outcome) = w.outcome else {
            self.finding(
                &WAIT_FOR_TOOLS_TO_BE_READY,
                "4",
                Some(w.captured),
                "a parallel queue resumed a wait for tools to be ready that has not ended".into(),
            );
            return None;
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
        Some(outcome)
    }

    /// Step 4's condition for one waiter: how its wait ends now, if it does. When several
    /// hold at once, destruction is taken first (a destroyed traversable has no active
    /// document either), then navigation (the caller must not go on to observe a document it
    /// did not wait for, even if that one is ready), then readiness. The timeout is a timer
    /// of its own (`wait_timed_out`).
    fn wait_condition(&self, waiter: &Waiter) -> Option<WaitOutcome> {
        let t = &self.navigables[waiter.traversable];
        if t.destroyed {
            return Some(WaitOutcome::Destroyed);
        }
        if t.active_document != Some(waiter.captured) {
            return Some(WaitOutcome::Navigated);
        }
        // areAllReady, answered by the readiness index (kept up to date by
        // `set_tools_ready` and `recount_not_ready`) instead of walking the tree; debug builds
        // check that the two agree.
        let ready = self.index_says_ready(waiter.traversable);
        debug_assert_eq!(
            ready,
            footprint::untracked(|| self.are_all_ready(waiter.captured))
        );
        ready.then_some(WaitOutcome::Ready)
    }

    /// Re-evaluates every waiting waiter's condition after a unit of work or a harness action;
    /// a wait that has ended wakes its queue.
    ///
    /// Each waiter's condition is a check after the unit (`footprint::post_check`): it joins
    /// the unit's footprint only when it ends the wait or reads what the unit changed, and it
    /// reads the same objects whatever their values. Which waiters there are, and the waiter
    /// itself, are not noted: the traversable and document it waits on never change, and
    /// whether it still waits is written only by a unit that ends the wait, which is ordered
    /// with every other unit that could end it through what ends it (the count, which a
    /// timeout reads and a navigation writes, or the traversable). A unit that begins a wait
    /// reads the documents' readiness as it does.
    fn check_waiters(&mut self) {
        let keys: Vec<WaiterKey> = footprint::untracked(|| {
            if self.webmcp().waiters.is_empty() {
                return Vec::new();
            }
            self.webmcp().waiters.keys().collect()
        });
        for key in keys {
            footprint::post_check(|| {
                let w = &footprint::untracked(|| self.webmcp().waiters[key].clone());
                // A check after a unit reads the same objects whatever their values: the
                // traversable and its readiness, before deciding anything.
                let _ = (
                    self.navigables.get(w.traversable),
                    self.index_says_ready(w.traversable),
                );
                let ended = match w.outcome {
                    Some(_) => None,
                    None => self.wait_condition(w),
                };
                match ended {
                    // A wait that ends because its tree became ready is noted on the count
                    // (the check's test for zero), not on the waiter: of the decreases that
                    // bring the count to zero, whichever runs last ends it, and they commute
                    // (`Access::DecreaseThenTest`); the waiter's record and its queue are
                    // written the same in either order. What else reads whether the wait has
                    // ended reads the count too (`wait_timed_out`), or was made runnable by
                    // its end (the caller's `AfterWait` step).
                    Some(WaitOutcome::Ready) => {
                        footprint::untracked(|| self.end_wait(key, WaitOutcome::Ready))
                    }
                    Some(outcome) => self.end_wait(key, outcome),
                    None => {}
                }
            });
        }
    }

    /// A waiter's deadline timer expired.
    fn wait_timed_out(&mut self, waiter: WaiterKey) {
        let Some(w) = self.webmcp().waiters.get(waiter) else {
            return;
        };
        // Whether the wait has already ended by readiness is noted on its traversable's
        // count (see `check_waiters`): the timeout reads it.
        let _ = self.index_says_ready(w.traversable);
        if w.outcome.is_none() {
            self.end_wait(waiter, WaitOutcome::TimedOut);
        }
    }

    /// A wait has ended: its queue may go on.
    fn end_wait(&mut self, waiter: WaiterKey, outcome: WaitOutcome) {
        let w = &mut self.webmcp_mut().waiters[waiter];
        w.outcome = Some(outcome);
        let queue = w.queue;
        self.webmcp_mut().journal_waiter(waiter);
        self.wake(queue);
    }

    /// The caller of a wait goes on (the caller's `AfterWait` step).
    fn finish_wait_and_continue(&mut self, caller: WaitCaller, waiter: WaiterKey) {
        let Some(outcome) = self.wait_for_tools_to_be_ready(WaitPhase::Resume { waiter }) else {
            return;
        };
        match caller {
            WaitCaller::Observation(o) => self.observation_after_wait(o, outcome),
            WaitCaller::GetTools {
                caller,
                promise,
                from_origins,
            } => {
                let tools = self.get_tools_collect(caller, &from_origins);
                self.get_tools_resolve(caller, promise, tools);
            }
        }
    }

    /// "Abandon an observation" step 2 (engine-defined): the browser agent stops an
    /// observation's wait for tools to be ready midway. The wait ends with no result: its
    /// timeout and record go away, and its queue drops the steps that would have gone on after
    /// it and runs its next step. False when the observation is not waiting.
    fn abandon_the_wait_of(&mut self, observation: ObservationKey) -> bool {
        let waiting = self.webmcp().waiters.iter().find_map(|(key, _)| {
            let queue = self.webmcp().waiters[key].queue;
            let after = self.parallel_queues[queue].steps.iter().any(|s| {
                matches!(&s.kind, ParallelStepKind::Webmcp(ParallelStep::AfterWait {
                    caller: WaitCaller::Observation(o), waiter,
                }) if *o == observation && *waiter == key)
            });
            after.then_some((key, queue))
        });
        let Some((waiter, queue)) = waiting else {
            return false;
        };
        let captured = self.webmcp().waiters[waiter].captured;
        // 2.1. The wait's timeout is cleared and the wait is forgotten.
        self.webmcp_mut().journal_waiter(waiter);
        if let Some(w) = self.webmcp_mut().waiters.remove(waiter) {
            self.remove_timer(w.deadline);
        }
        step!(self, ABANDON_AN_OBSERVATION, "2.1", Some(captured));
        // 2.2. The queue no longer waits: the observation's remaining steps leave it.
        self.remove_parallel_steps(queue, |kind| {
            matches!(kind, ParallelStepKind::Webmcp(ParallelStep::AfterWait { waiter: w, .. }) if *w == waiter)
        });
        self.stop_waiting(queue);
        step!(self, ABANDON_AN_OBSERVATION, "2.2", Some(captured));
        true
    }

    /// How many waits for tools to be ready are under way.
    fn live_waiters(&self) -> usize {
        self.webmcp().waiters.len()
    }

    /// What a document's destruction does to readiness: Chromium's PendingWaitForTools counts
    /// a promise whose realm is destroyed as settled (destroyed-realm-promise=
    /// settled-on-destroy); under the text it never settles.
    fn settle_promises_of_destroyed_realm(&mut self, doc: DocumentKey) {
        if self.switches().destroyed_realm_promise != DestroyedRealmPromise::SettledOnDestroy {
            return;
        }
        let affected: Vec<(ModelContextKey, PromiseKey)> = self
            .webmcp()
            .pending_tool_readiness_promises
            .iter()
            .flat_map(|(k, set)| {
                set.iter()
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
            let owner = self.document_of(context);
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

    /// A lifecycle stage's effect on tools-ready: the tools-ready-lifecycle switch presumes
    /// tools not ready until the stage it names.
    fn lifecycle_reached_steps(&mut self, doc: DocumentKey, stage: Lifecycle) {
        step!(self, DOCUMENT_LIFECYCLE, "1", Some(doc), "{stage:?}");
        if self.switches().tools_ready_lifecycle != ToolsReadyLifecycle::None {
            self.update_the_tools_ready_state(doc);
        }
    }

    /// Whether the tools-ready-lifecycle switch lets a document's tools be ready yet.
    fn lifecycle_allows_ready(&self, doc: DocumentKey) -> bool {
        let reached = self.documents[doc].lifecycle;
        match self.switches().tools_ready_lifecycle {
            ToolsReadyLifecycle::None => true,
            ToolsReadyLifecycle::DomContentLoaded => reached >= Lifecycle::Interactive,
            ToolsReadyLifecycle::Load => reached >= Lifecycle::Complete,
        }
    }
}

impl<W: WebMcpHost> Readiness for W {}
