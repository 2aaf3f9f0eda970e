//! The platform rules about promises that decide PR #373's review: Web IDL's conversion of a
//! `Promise<any>` argument (ECMAScript's PromiseResolve), the realm of a
//! PromiseResolveThenableJob and of a reaction job, and HTML's rule that a job whose realm's
//! document is not fully active does not run.
//!
//! <https://tc39.es/ecma262/#sec-promise-resolve>,
//! <https://tc39.es/ecma262/#sec-newpromiseresolvethenablejob>,
//! <https://tc39.es/ecma262/#sec-newpromisereactionjob>,
//! <https://html.spec.whatwg.org/multipage/webappapis.html#hostenqueuepromisejob>

use crate::common;

use common::Sim;
use webmcp_ref::host::promise::ThenBehaviour;
use webmcp_ref::host::spec::{HOST_ENQUEUE_PROMISE_JOB, PROMISE_RESOLVE_THENABLE_JOB};
#[allow(unused_imports)]
use webmcp_ref::prelude::*;
use webmcp_ref::Value;

/// A page `top` at https://a.test/ with a same-origin iframe `child`.
fn top_and_child(sim: &mut Sim) -> (webmcp_ref::DocumentKey, webmcp_ref::DocumentKey) {
    let top = sim.page("top", "https://a.test/");
    let child = sim.frame(top, "child", "https://a.test/child.html");
    (top, child)
}

#[test]
fn promise_resolve_step_1_passes_a_same_realm_native_promise_through() {
    // Under idl-promise-conversion=promise-resolve, Web IDL's conversion is PromiseResolve too.
    let mut sim = Sim::new("promise-resolve");
    let top = sim.page("top", "https://a.test/");
    let p = sim.promise_in(top, "p");
    sim.task(top, "x = Promise.resolve(p)\ntop.waitForToolsUntil(p)");
    sim.flush();
    // Promise.resolve(p) in p's own realm is p itself...
    assert_eq!(sim.value("x"), Value::Promise(p));
    // ...and so is waitForToolsUntil's converted argument: the pending set holds p, not a copy.
    let pending = &sim.pending_set(top);
    assert_eq!(pending.len(), 1);
    assert_eq!(pending[0].promise, p);
    assert!(
        !sim.reached(&PROMISE_RESOLVE_THENABLE_JOB, "1"),
        "no job adopts a same-realm promise"
    );
}

#[test]
fn webidl_promise_conversion_steps_1_and_2_make_a_new_promise_even_for_a_settled_same_realm_one() {
    // https://webidl.spec.whatwg.org/#js-promise: a new promise capability of the callee's
    // realm (1), resolved with the value (2): a native promise is adopted by a job.
    let mut sim = Sim::new("spec");
    let top = sim.page("top", "https://a.test/");
    let p = sim.promise_in(top, "p");
    sim.w.resolve_promise(p, Value::number(1.0));
    sim.task(top, "x = Promise.resolve(p)\ntop.waitForToolsUntil(p)");
    assert!(sim.step(), "the task");
    // ECMAScript's PromiseResolve (Promise.resolve, await) still passes p through...
    assert_eq!(sim.value("x"), Value::Promise(p));
    // ...but Web IDL's conversion did not: the pending set holds a new, pending promise.
    let pending = &sim.pending_set(top);
    assert_eq!(pending.len(), 1);
    assert_ne!(pending[0].promise, p);
    assert_eq!(sim.promise(pending[0].promise).realm, top);
    assert!(!sim.ready(top), "tools-ready is false for the rest of the task");
    let job = sim.step_microtask();
    assert!(job.contains("PromiseResolveThenableJob"), "{job}");
    sim.run();
    assert!(sim.ready(top));
}

#[test]
fn bindings_promise_conversion_passes_any_native_promise_through() {
    // idl-promise-conversion=pass-through (Chromium 156, webmcp/probes/promise-conversion):
    // another realm's promise too.
    let mut sim = Sim::new("chromium-pr373");
    let (top, child) = top_and_child(&mut sim);
    let p = sim.promise_in(child, "p");
    sim.task(top, "top.waitForToolsUntil(p)");
    sim.run();
    let pending = &sim.pending_set(top);
    assert_eq!(pending.len(), 1);
    assert_eq!(pending[0].promise, p);
    assert!(!sim.reached(&PROMISE_RESOLVE_THENABLE_JOB, "1"));
}

#[test]
fn promise_resolve_step_2_wraps_a_plain_value_in_a_settled_promise_of_the_callee_realm() {
    let mut sim = Sim::new("spec");
    let (_, child) = top_and_child(&mut sim);
    // child's script calls Promise.resolve: the callee is child's %Promise%.
    sim.task(child, "x = Promise.resolve(42)");
    assert!(sim.step(), "the task runs");
    let x = sim.promise_named("x");
    assert_eq!(sim.promise(x).realm, child);
    // No job is needed: a value with no `then` fulfills the new promise at once.
    assert_eq!(sim.fulfilled_value(x), Value::number(42.0));
    assert!(!sim.step(), "nothing else was queued");
    // The callee's realm, not the caller's: child's script converting 42 for top's
    // waitForToolsUntil makes a promise of top's realm (seen under the first revision, which
    // keeps already-settled promises in the set).
    let mut sim = Sim::new("pr373-r1");
    let (top2, child2) = top_and_child(&mut sim);
    sim.task(child2, "top.waitForToolsUntil(42)");
    assert!(sim.step());
    let pending = &sim.pending_set(top2);
    assert_eq!(pending.len(), 1);
    assert_eq!(sim.promise(pending[0].promise).realm, top2);
}

#[test]
fn promise_resolve_step_2_wraps_another_realm_promise_in_a_new_pending_promise() {
    let mut sim = Sim::new("spec");
    let (top, child) = top_and_child(&mut sim);
    let p = sim.promise_in(child, "p");
    sim.w.resolve_promise(p, Value::number(1.0));
    sim.task(top, "x = Promise.resolve(p)");
    assert!(sim.step(), "the task runs");
    let x = sim.promise_named("x");
    assert_ne!(x, p, "another realm's promise is not passed through");
    assert_eq!(sim.promise(x).realm, top);
    assert_eq!(
        sim.state(x),
        "pending",
        "even though p has already fulfilled"
    );
}

#[test]
fn promise_resolve_thenable_job_adopts_another_realm_promise_in_two_microtasks_of_its_realm() {
    let mut sim = Sim::new("spec");
    let (top, child) = top_and_child(&mut sim);
    let p = sim.promise_in(child, "p");
    sim.w.resolve_promise(p, Value::number(1.0));
    sim.task(top, "x = Promise.resolve(p)");
    assert!(sim.step(), "unit 1: the task");
    let x = sim.promise_named("x");
    assert_eq!(sim.state(x), "pending");
    // Unit 2: the PromiseResolveThenableJob, in the realm of p's `then` (child's), calls
    // p.then(resolve, reject): p has fulfilled, so that queues a reaction job.
    assert!(sim.step());
    assert_eq!(
        sim.state(x),
        "pending",
        "still pending after the thenable job"
    );
    // Unit 3: the reaction job calls x's resolve function.
    assert!(sim.step());
    assert_eq!(sim.fulfilled_value(x), Value::number(1.0));
    assert!(!sim.step());
    let units = sim.units();
    assert_eq!(units.len(), 3, "{units:#?}");
    assert!(
        units[1].starts_with("microtask in child: PromiseResolveThenableJob"),
        "{}",
        units[1]
    );
    assert!(
        units[2].starts_with("microtask in child: resolve function of"),
        "{}",
        units[2]
    );
}

#[test]
fn promise_resolve_thenable_job_runs_a_thenables_then_in_the_thenables_realm() {
    let mut sim = Sim::new("spec");
    let (top, child) = top_and_child(&mut sim);
    sim.thenable(child, "t", ThenBehaviour::Resolve(Value::number(7.0)));
    sim.task(top, "x = Promise.resolve(t)");
    assert!(sim.step(), "the task");
    let x = sim.promise_named("x");
    assert_eq!(
        sim.state(x),
        "pending",
        "a thenable is never taken as settled"
    );
    // One job: `then` calls resolve(7) synchronously inside it.
    assert!(sim.step());
    assert_eq!(sim.fulfilled_value(x), Value::number(7.0));
    let units = sim.units();
    assert!(
        units[1].starts_with("microtask in child: PromiseResolveThenableJob"),
        "{}",
        units[1]
    );
}

#[test]
fn promise_resolve_thenable_job_keeps_the_promise_pending_until_the_thenable_calls_back() {
    let mut sim = Sim::new("spec");
    let top = sim.page("top", "https://a.test/");
    sim.thenable(top, "t", ThenBehaviour::Keep);
    sim.task(top, "x = Promise.resolve(t)");
    sim.run();
    let x = sim.promise_named("x");
    assert!(sim.reached(&PROMISE_RESOLVE_THENABLE_JOB, "1"));
    assert_eq!(sim.state(x), "pending");
    sim.task(top, "resolve t with 3");
    sim.run();
    assert_eq!(sim.fulfilled_value(x), Value::number(3.0));
}

#[test]
fn promise_resolve_thenable_job_rejects_when_then_throws() {
    let mut sim = Sim::new("spec");
    let top = sim.page("top", "https://a.test/");
    sim.thenable(top, "t", ThenBehaviour::Throw(Value::string("boom")));
    sim.task(top, "x = Promise.resolve(t)");
    sim.run();
    assert_eq!(sim.rejection_of("x"), "boom");
}

#[test]
fn promise_resolve_thenable_job_of_a_removed_iframe_never_runs_so_the_wrapper_stays_pending() {
    let mut sim = Sim::new("spec");
    let (top, child) = top_and_child(&mut sim);
    let p = sim.promise_in(child, "p");
    sim.w.resolve_promise(p, Value::number(1.0));
    // The job is queued in the task, and child is removed before the microtask checkpoint.
    sim.task(top, "x = Promise.resolve(p)\nremove child");
    sim.run();
    assert_eq!(sim.state_of("x"), "pending");
    assert!(sim.reached(&HOST_ENQUEUE_PROMISE_JOB, "2.1"));
    assert!(
        !sim.reached(&PROMISE_RESOLVE_THENABLE_JOB, "1"),
        "the job was dropped"
    );
    assert!(sim
        .trace_text()
        .contains("realm's document is not fully active: PromiseResolveThenableJob"));
}

#[test]
fn reaction_job_runs_in_its_handlers_realm_not_the_promises() {
    // q belongs to top, which stays fully active. top's handler hangs on q itself; child's
    // `on q fulfilled` is Promise.resolve(q).then(...) in child's realm, so its handler is a
    // function of child's realm.
    let mut sim = Sim::new("spec");
    let (top, child) = top_and_child(&mut sim);
    sim.promise_in(top, "q");
    sim.task(top, "on q fulfilled: log \"top handler\"");
    sim.task(child, "on q fulfilled: log \"child handler\"");
    sim.run();
    sim.w.remove_iframe(child).unwrap();
    sim.task(top, "resolve q with 1");
    sim.run();
    assert_eq!(sim.logged(), vec!["top handler"]);
    assert!(sim.reached(&HOST_ENQUEUE_PROMISE_JOB, "2.1"));
    assert!(sim
        .units()
        .iter()
        .any(|u| u.starts_with("microtask in child: reaction script")));
}

#[test]
fn reaction_job_of_an_inactive_realm_runs_under_inactive_realm_jobs_run() {
    let mut sim = Sim::with("spec", &[("inactive-realm-jobs", "run")]);
    let (top, child) = top_and_child(&mut sim);
    sim.promise_in(top, "q");
    sim.task(top, "on q fulfilled: log \"top handler\"");
    sim.task(child, "on q fulfilled: log \"child handler\"");
    sim.run();
    sim.w.remove_iframe(child).unwrap();
    sim.task(top, "resolve q with 1");
    sim.run();
    assert_eq!(sim.logged(), vec!["top handler", "child handler"]);
    assert!(sim.trace_text().contains("inactive-realm-jobs=run"));
}

#[test]
fn host_enqueue_promise_job_step_2_1_drops_a_job_of_a_removed_iframe() {
    let mut sim = Sim::new("spec");
    let (top, child) = top_and_child(&mut sim);
    sim.promise_in(child, "p");
    sim.task(child, "on p fulfilled: log \"ran\"");
    sim.run();
    sim.task(top, "remove child\nresolve p with 1");
    sim.run();
    assert_eq!(sim.state_of("p"), "fulfilled");
    assert!(sim.logged().is_empty(), "{:?}", sim.logged());
    assert!(sim.reached(&HOST_ENQUEUE_PROMISE_JOB, "2.1"));
}

#[test]
fn host_enqueue_promise_job_step_2_1_drops_a_job_of_a_bfcached_document_for_good() {
    let mut sim = Sim::new("spec");
    let top = sim.page("top", "https://a.test/");
    sim.promise_in(top, "p");
    sim.task(top, "on p fulfilled: log \"ran\"");
    sim.run();
    let next = sim
        .w
        .navigate(top, "https://a.test/next", "next", true)
        .unwrap();
    assert!(!sim.is_fully_active(top));
    // A script of the document now in the navigable settles top's promise.
    sim.task(next, "resolve p with 1");
    sim.run();
    assert!(sim.logged().is_empty());
    assert!(sim.reached(&HOST_ENQUEUE_PROMISE_JOB, "2.1"));
    // Restoring the document does not bring the dropped job back.
    sim.w.go_back(next).unwrap();
    assert!(sim.is_fully_active(top));
    sim.run();
    assert!(sim.logged().is_empty(), "{:?}", sim.logged());
}

#[test]
fn host_enqueue_promise_job_step_2_1_runs_a_bfcached_documents_job_under_inactive_realm_jobs_run() {
    let mut sim = Sim::with("spec", &[("inactive-realm-jobs", "run")]);
    let top = sim.page("top", "https://a.test/");
    sim.promise_in(top, "p");
    sim.task(top, "on p fulfilled: log \"ran\"");
    sim.run();
    let next = sim
        .w
        .navigate(top, "https://a.test/next", "next", true)
        .unwrap();
    sim.task(next, "resolve p with 1");
    sim.run();
    assert_eq!(sim.logged(), vec!["ran"]);
}

#[test]
fn html_task_of_a_bfcached_document_is_not_runnable_until_it_is_restored() {
    // The contrast with jobs: a task waits in its queue; a job is dropped.
    let mut sim = Sim::new("spec");
    let top = sim.page("top", "https://a.test/");
    let next = sim
        .w
        .navigate(top, "https://a.test/next", "next", true)
        .unwrap();
    sim.task(top, "log \"task ran\"");
    sim.run();
    assert!(sim.logged().is_empty());
    sim.w.go_back(next).unwrap();
    sim.run();
    assert_eq!(sim.logged(), vec!["task ran"]);
}
