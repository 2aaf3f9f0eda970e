//! Promises with realms, their reactions and jobs, and Web IDL's conversion of a value to a
//! `Promise<T>`.
//!
//! <https://tc39.es/ecma262/#sec-promise-objects>,
//! <https://webidl.spec.whatwg.org/#idl-promise>,
//! <https://html.spec.whatwg.org/multipage/webappapis.html#hostenqueuepromisejob>
//!
//! What decides the review of PR #373 is which realm each job runs in:
//! - a `PromiseResolveThenableJob` runs in the realm of the thenable's `then` (for a native
//!   promise, the realm the promise was created in);
//! - a reaction job runs in the realm of its handler: the functions that "react to a promise"
//!   creates belong to the realm of the method that created them, and the resolving functions a
//!   thenable job creates belong to that job's realm;
//! - HTML drops a job whose realm's document is not fully active ("check if we can run
//!   script"), unless the inactive-realm-jobs switch says to run it.

use super::callback::Callback;
use super::keys::{DocumentKey, PromiseKey, ResolverKey, ThenableKey};
use super::seam::Upper;
use super::spec::{HOST_ENQUEUE_PROMISE_JOB, PROMISE_RESOLVE_THENABLE_JOB};
use super::switches::{IdlPromiseConversion, InactiveRealmJobs};
use super::timers::TimerKind;
use super::value::{ErrorRealm, ErrorValue, Value};
use super::{Completion, Host, HostState};
use crate::step;

/// A promise's state.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum PromiseState {
    Pending,
    Fulfilled(Value),
    Rejected(Value),
}

impl PromiseState {
    pub fn name(&self) -> &'static str {
        match self {
            PromiseState::Pending => "pending",
            PromiseState::Fulfilled(_) => "fulfilled",
            PromiseState::Rejected(_) => "rejected",
        }
    }
}

/// A promise object.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Promise<U: Upper> {
    /// The realm it was created in (named by that realm's document).
    pub realm: DocumentKey,
    pub state: PromiseState,
    /// The "already resolved" record of the resolving functions made with it.
    pub already_resolved: bool,
    pub reactions: Vec<PromiseReaction<U>>,
    /// Creation number, for traces.
    pub id: u32,
}

/// <https://tc39.es/ecma262/#sec-promisereaction-records>, one record for both branches.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct PromiseReaction<U: Upper> {
    pub derived: Option<PromiseKey>,
    pub on_fulfilled: Handler<U>,
    pub on_rejected: Handler<U>,
}

/// A reaction's handler.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Handler<U: Upper> {
    /// No handler: the value passes through to the derived promise.
    Empty,
    /// A resolving function made by a `PromiseResolveThenableJob`.
    Resolving { resolver: ResolverKey, reject: bool },
    /// A function of the page's script (an `on p fulfilled:` block, the rest of an async
    /// script after an `await`).
    Callback(Callback),
    /// Steps of the specification above, made by "react to a promise" in `realm` (the realm
    /// of the method that reacted): the seam.
    Webmcp {
        realm: DocumentKey,
        step: U::Reaction,
    },
}

/// A promise job.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Job<U: Upper> {
    /// <https://tc39.es/ecma262/#sec-newpromisereactionjob>
    Reaction {
        handler: Handler<U>,
        argument: Value,
        derived: Option<PromiseKey>,
        fulfilled: bool,
    },
    /// <https://tc39.es/ecma262/#sec-newpromiseresolvethenablejob>
    ResolveThenable {
        promise: PromiseKey,
        thenable: Value,
    },
}

/// A pair of resolving functions and their shared "already resolved" record.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Resolver {
    pub promise: PromiseKey,
    pub already_resolved: bool,
    /// The realm the functions were created in.
    pub realm: DocumentKey,
}

/// What a scenario's thenable does when its `then` is called.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum ThenBehaviour {
    /// Keeps the resolving functions, for the scenario to call later.
    Keep,
    /// Calls `resolve(value)` at once.
    Resolve(Value),
    /// Calls `reject(reason)` at once.
    Reject(Value),
    /// Throws.
    Throw(Value),
    /// Sets a timer of the thenable's realm (as `setTimeout(..., delay)` would) whose task
    /// calls `resolve(value)`, or `reject(value)`.
    Later {
        reject: bool,
        value: Value,
        delay: u64,
    },
}

/// An object with a `then` method, in a realm.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Thenable {
    pub realm: DocumentKey,
    pub behaviour: ThenBehaviour,
    /// The resolving functions its `then` was called with.
    pub callers: Vec<ResolverKey>,
    pub label: String,
}

impl<U: Upper> HostState<U> {
    /// A new pending promise in `realm`.
    ///
    /// <https://webidl.spec.whatwg.org/#a-new-promise>
    pub fn new_promise(&mut self, realm: DocumentKey) -> PromiseKey {
        *self.promise_count += 1;
        let id = *self.promise_count;
        self.promises.insert(Promise {
            realm,
            state: PromiseState::Pending,
            already_resolved: false,
            reactions: Vec::new(),
            id,
        })
    }

    /// Gives a promise the name a scenario knows it by.
    pub fn name_promise(&mut self, promise: PromiseKey, label: &str) {
        self.promise_labels.insert(promise, label.into());
    }

    pub fn promise_label(&self, promise: PromiseKey) -> String {
        match self.promise_labels.get(&promise) {
            Some(l) => l.clone(),
            None => match self.promises.get(promise) {
                Some(p) => format!("promise#{}", p.id),
                None => "(gone)".into(),
            },
        }
    }

    pub fn promise_state(&self, promise: PromiseKey) -> &PromiseState {
        &self.promises[promise].state
    }

    pub fn promise(&self, promise: PromiseKey) -> &Promise<U> {
        &self.promises[promise]
    }

    pub fn thenable_realm(&self, thenable: ThenableKey) -> DocumentKey {
        self.thenables[thenable].realm
    }

    /// A new thenable in `realm`.
    pub fn new_thenable(
        &mut self,
        realm: DocumentKey,
        label: &str,
        behaviour: ThenBehaviour,
    ) -> ThenableKey {
        self.thenables.insert(Thenable {
            realm,
            behaviour,
            callers: Vec::new(),
            label: label.into(),
        })
    }

    /// <https://webidl.spec.whatwg.org/#resolve>: resolves a promise through its own resolving
    /// functions (nothing happens if they were already used).
    pub fn resolve_promise(&mut self, promise: PromiseKey, value: Value) {
        if std::mem::replace(&mut self.promises[promise].already_resolved, true) {
            return;
        }
        self.resolve_steps(promise, value);
    }

    /// <https://webidl.spec.whatwg.org/#reject>
    pub fn reject_promise(&mut self, promise: PromiseKey, reason: Value) {
        if std::mem::replace(&mut self.promises[promise].already_resolved, true) {
            return;
        }
        // An error an algorithm made for this rejection is created in the promise's realm.
        let realm = ErrorRealm::In(self.promises[promise].realm);
        self.settle(promise, PromiseState::Rejected(reason.placed(realm)));
    }

    /// <https://tc39.es/ecma262/#sec-promise-resolve-functions>, steps 7-16.
    fn resolve_steps(&mut self, promise: PromiseKey, resolution: Value) {
        // 7. Resolving a promise with itself is a TypeError.
        if resolution == Value::Promise(promise) {
            let e = ErrorValue::type_error("a promise cannot be resolved with itself");
            let realm = self.promises[promise].realm;
            self.settle(promise, PromiseState::Rejected(Value::error_in(realm, e)));
            return;
        }
        // 9-13. A value with no callable `then` fulfills the promise.
        let then_realm = match &resolution {
            Value::Promise(q) => self.promises[*q].realm,
            Value::Thenable(t) => self.thenables[*t].realm,
            _ => {
                self.settle(promise, PromiseState::Fulfilled(resolution));
                return;
            }
        };
        // 14-15. Otherwise a PromiseResolveThenableJob, in the realm of `then`.
        self.queue_microtask(
            Some(then_realm),
            Job::ResolveThenable {
                promise,
                thenable: resolution,
            },
        );
    }

    /// Fulfills or rejects, then triggers the reactions.
    ///
    /// <https://tc39.es/ecma262/#sec-fulfillpromise>, <https://tc39.es/ecma262/#sec-rejectpromise>
    fn settle(&mut self, promise: PromiseKey, state: PromiseState) {
        let p = &mut self.promises[promise];
        if p.state != PromiseState::Pending {
            return;
        }
        let (fulfilled, argument) = match &state {
            PromiseState::Fulfilled(v) => (true, v.clone()),
            PromiseState::Rejected(v) => (false, v.clone()),
            PromiseState::Pending => return,
        };
        p.state = state;
        let reactions = std::mem::take(&mut p.reactions);
        if self.journal.enabled {
            self.journal.promises.push(promise);
        }
        for reaction in reactions {
            self.queue_reaction_job(reaction, fulfilled, argument.clone());
        }
    }

    /// <https://tc39.es/ecma262/#sec-newpromisereactionjob> and HostEnqueuePromiseJob: the
    /// job's realm is its handler's.
    fn queue_reaction_job(
        &mut self,
        reaction: PromiseReaction<U>,
        fulfilled: bool,
        argument: Value,
    ) {
        let handler = if fulfilled {
            reaction.on_fulfilled
        } else {
            reaction.on_rejected
        };
        let realm = self.handler_realm(&handler);
        self.queue_microtask(
            realm,
            Job::Reaction {
                handler,
                argument,
                derived: reaction.derived,
                fulfilled,
            },
        );
    }

    /// The realm of a handler function: null for an empty handler.
    fn handler_realm(&self, handler: &Handler<U>) -> Option<DocumentKey> {
        match handler {
            Handler::Empty => None,
            Handler::Resolving { resolver, .. } => Some(self.resolvers[*resolver].realm),
            Handler::Callback(c) => Some(c.realm()),
            Handler::Webmcp { realm, .. } => Some(*realm),
        }
    }

    /// <https://tc39.es/ecma262/#sec-performpromisethen>
    pub(crate) fn perform_promise_then(
        &mut self,
        promise: PromiseKey,
        on_fulfilled: Handler<U>,
        on_rejected: Handler<U>,
        derived: Option<PromiseKey>,
    ) {
        let reaction = PromiseReaction {
            derived,
            on_fulfilled,
            on_rejected,
        };
        match self.promises[promise].state.clone() {
            PromiseState::Pending => {
                // Most promises get one reaction: room for exactly one, not Vec's default four.
                let reactions = &mut self.promises[promise].reactions;
                if reactions.is_empty() {
                    reactions.reserve_exact(1);
                }
                reactions.push(reaction)
            }
            PromiseState::Fulfilled(v) => self.queue_reaction_job(reaction, true, v),
            PromiseState::Rejected(r) => self.queue_reaction_job(reaction, false, r),
        }
    }

    /// <https://tc39.es/ecma262/#sec-promise-resolve>: `PromiseResolve(%Promise%, V)` in
    /// `realm` (`await`, `Promise.resolve()`). A native promise of the same realm passes
    /// through; anything else gets a new promise of `realm`, resolved with it.
    pub(crate) fn promise_resolve(&mut self, realm: DocumentKey, value: Value) -> PromiseKey {
        if let Value::Promise(p) = value {
            if self.promises[p].realm == realm {
                return p;
            }
        }
        let promise = self.new_promise(realm);
        self.promises[promise].already_resolved = true;
        self.resolve_steps(promise, value);
        promise
    }

    /// <https://webidl.spec.whatwg.org/#a-promise-rejected-with>
    pub(crate) fn promise_rejected_with(
        &mut self,
        realm: DocumentKey,
        reason: ErrorValue,
    ) -> PromiseKey {
        let promise = self.new_promise(realm);
        self.reject_promise(promise, Value::error(reason));
        promise
    }

    /// Calls one of a pair of resolving functions.
    ///
    /// <https://tc39.es/ecma262/#sec-createresolvingfunctions>
    pub(crate) fn call_resolver(&mut self, resolver: ResolverKey, reject: bool, value: Value) {
        let r = &mut self.resolvers[resolver];
        if std::mem::replace(&mut r.already_resolved, true) {
            return;
        }
        let promise = r.promise;
        if reject {
            self.settle(promise, PromiseState::Rejected(value));
        } else {
            self.resolve_steps(promise, value);
        }
    }

    /// Calls the resolving functions a thenable's `then` was given, as the scenario's
    /// `resolve t with v` does.
    pub(crate) fn settle_thenable(&mut self, thenable: ThenableKey, reject: bool, value: Value) {
        let callers = self.thenables[thenable].callers.clone();
        for resolver in callers {
            self.call_resolver(resolver, reject, value.clone());
        }
    }
}

/// Running promise jobs and describing them.
pub trait Promises: Host {
    /// <https://webidl.spec.whatwg.org/#js-promise>: converting a value to `Promise<T>` in
    /// `realm` (an operation's argument, a callback's result). Web IDL's text (1) makes a new
    /// promise capability of `realm` and (2) calls its resolve function with the value, so a
    /// native promise, even one already settled, arrives pending and is adopted through a
    /// PromiseResolveThenableJob. The idl-promise-conversion switch gives the older
    /// PromiseResolve, and browsers' bindings, which pass a native promise through.
    fn convert_to_idl_promise(&mut self, realm: DocumentKey, value: Value) -> PromiseKey {
        match self.host_switches().idl_promise_conversion {
            IdlPromiseConversion::PassThrough => {
                if let Value::Promise(p) = value {
                    return p;
                }
                self.promise_resolve(realm, value)
            }
            IdlPromiseConversion::PromiseResolve => self.promise_resolve(realm, value),
            IdlPromiseConversion::Webidl => {
                // 1. Let promiseCapability be ? NewPromiseCapability(%Promise%).
                let promise = self.new_promise(realm);
                // 2. Perform ? Call(promiseCapability.[[Resolve]], undefined, « V »).
                self.promises[promise].already_resolved = true;
                self.resolve_steps(promise, value);
                // 3. Return promiseCapability.
                promise
            }
        }
    }

    /// Runs a microtask's job, after HTML's check of its realm.
    ///
    /// <https://html.spec.whatwg.org/multipage/webappapis.html#hostenqueuepromisejob>, step 2.
    fn run_job(&mut self, realm: Option<DocumentKey>, job: Job<Self::Upper>) {
        if let Some(realm) = realm {
            // 2.1. "Check if we can run script": not when the realm's document is not fully
            // active. The inactive-realm-jobs switch can let the job run anyway.
            if !self.is_fully_active(realm) {
                match self.host_switches().inactive_realm_jobs {
                    InactiveRealmJobs::Dropped => {
                        step!(
                            self,
                            HOST_ENQUEUE_PROMISE_JOB,
                            "2.1",
                            Some(realm),
                            |w| format!(
                                "realm's document is not fully active: {} not run",
                                w.describe_job(&job)
                            )
                        );
                        return;
                    }
                    InactiveRealmJobs::Run => {
                        step!(self, HOST_ENQUEUE_PROMISE_JOB, "2.1", Some(realm), |w| {
                            format!(
                            "realm's document is not fully active; inactive-realm-jobs=run: {} runs anyway",
                            w.describe_job(&job)
                        )
                        });
                    }
                }
            }
        }
        match job {
            Job::Reaction {
                handler,
                argument,
                derived,
                fulfilled,
            } => {
                let result = self.call_handler(handler, argument, fulfilled);
                if let Some(derived) = derived {
                    match result {
                        Ok(v) => self.resolve_promise(derived, v),
                        Err(e) => self.reject_promise(derived, e),
                    }
                }
            }
            Job::ResolveThenable { promise, thenable } => {
                // The resolving functions are created in the job's realm.
                let job_realm = realm.unwrap_or(self.promises[promise].realm);
                let resolver = self.resolvers.insert(Resolver {
                    promise,
                    already_resolved: false,
                    realm: job_realm,
                });
                step!(self, PROMISE_RESOLVE_THENABLE_JOB, "1", realm, |w| format!(
                    "{} adopts {}",
                    w.promise_label(promise),
                    w.describe_value(&thenable)
                ));
                match thenable {
                    Value::Promise(q) => self.perform_promise_then(
                        q,
                        Handler::Resolving {
                            resolver,
                            reject: false,
                        },
                        Handler::Resolving {
                            resolver,
                            reject: true,
                        },
                        None,
                    ),
                    Value::Thenable(t) => match self.thenables[t].behaviour.clone() {
                        ThenBehaviour::Keep => self.thenables[t].callers.push(resolver),
                        ThenBehaviour::Resolve(v) => self.call_resolver(resolver, false, v),
                        ThenBehaviour::Reject(v) | ThenBehaviour::Throw(v) => {
                            self.call_resolver(resolver, true, v)
                        }
                        ThenBehaviour::Later {
                            reject,
                            value,
                            delay,
                        } => {
                            let document = self.thenables[t].realm;
                            self.add_timer(
                                delay,
                                TimerKind::ThenCallback {
                                    document,
                                    resolver,
                                    reject,
                                    value,
                                },
                            );
                        }
                    },
                    other => self.call_resolver(resolver, false, other),
                }
            }
        }
    }

    /// Calls a handler with the settled value. An `Err` is a thrown exception.
    fn call_handler(
        &mut self,
        handler: Handler<Self::Upper>,
        argument: Value,
        fulfilled: bool,
    ) -> Completion {
        match handler {
            Handler::Empty => {
                if fulfilled {
                    Ok(argument)
                } else {
                    Err(argument)
                }
            }
            Handler::Resolving { resolver, reject } => {
                self.call_resolver(resolver, reject, argument);
                Ok(Value::Undefined)
            }
            Handler::Callback(callback) => self.call(&callback, vec![argument]),
            Handler::Webmcp { step, .. } => self.run_reaction(step, argument, fulfilled),
        }
    }

    fn describe_job(&self, job: &Job<Self::Upper>) -> String {
        match job {
            Job::Reaction {
                handler, fulfilled, ..
            } => {
                let branch = if *fulfilled { "fulfilled" } else { "rejected" };
                match handler {
                    Handler::Empty => format!("pass-through reaction ({branch})"),
                    Handler::Resolving { resolver, reject } => format!(
                        "{} function of {} ({branch})",
                        if *reject { "reject" } else { "resolve" },
                        self.promise_label(self.resolvers[*resolver].promise)
                    ),
                    Handler::Callback(callback) => callback.describe(),
                    Handler::Webmcp { step, .. } => {
                        format!("{} ({branch})", self.describe_reaction(step))
                    }
                }
            }
            Job::ResolveThenable { promise, thenable } => format!(
                "PromiseResolveThenableJob: {} adopts {}",
                self.promise_label(*promise),
                self.describe_value(thenable)
            ),
        }
    }
}

impl<H: Host> Promises for H {}
