//! Awaiting the simulation: `World::observed(top)` and `World::settled(promise)` are futures
//! that drive the world on its virtual clock until what they wait for has happened.

use crate::common;

use std::time::{Duration, Instant};

use futures::executor::block_on;

use common::{tool, Sim};
use webmcp_ref::engine::future::Stalled;
use webmcp_ref::host::promise::PromiseState;
#[allow(unused_imports)]
use webmcp_ref::prelude::*;
use webmcp_ref::{Value, WaitOutcome};

#[test]
fn future_an_observation_that_waits_out_the_timeout_returns_at_once_in_real_time() {
    let mut sim = Sim::new("spec");
    let top = sim.page("top", "https://a.test/");
    sim.promise_in(top, "p");
    sim.task(top, "top.waitForToolsUntil(p)");
    let started = Instant::now();
    let result = block_on(sim.w.observed(top)).unwrap();
    let elapsed = started.elapsed();
    assert_eq!(result.outcome, WaitOutcome::TimedOut);
    assert_eq!(result.waited_ms, 5000);
    assert_eq!(sim.now(), 5000, "5 s of virtual time went by");
    assert!(
        elapsed < Duration::from_secs(2),
        "no wall clock is involved: {elapsed:?}"
    );
}

#[test]
fn future_an_observation_ends_when_the_tools_are_ready() {
    let mut sim = Sim::new("spec");
    let top = sim.page("top", "https://a.test/");
    sim.promise_in(top, "p");
    sim.task(
        top,
        &format!(
            "top.waitForToolsUntil(p)\nafter 300ms:\n  top.registerTool({})\n  resolve p",
            tool("late", "")
        ),
    );
    let result = block_on(sim.w.observed(top)).unwrap();
    assert_eq!(result.outcome, WaitOutcome::Ready);
    assert_eq!(result.waited_ms, 300);
    let tools = &result.tool_map.unwrap()[0].tools;
    assert_eq!(tools[0].name, "late");
}

#[test]
fn future_a_promise_that_settles_later_gives_its_state() {
    let mut sim = Sim::new("spec");
    let top = sim.page("top", "https://a.test/");
    let p = sim.promise_in(top, "p");
    sim.task(top, "after 250ms: resolve p with \"done\"");
    let state = block_on(sim.w.settled(p)).unwrap();
    assert_eq!(state, PromiseState::Fulfilled(Value::string("done")));
    assert_eq!(sim.now(), 250);
}

#[test]
fn future_a_promise_that_never_settles_ends_with_stalled_idle() {
    let mut sim = Sim::new("spec");
    let top = sim.page("top", "https://a.test/");
    let p = sim.promise_in(top, "p");
    sim.task(top, "after 100ms: log \"tick\"");
    let started = Instant::now();
    let outcome = block_on(sim.w.settled(p));
    assert_eq!(outcome, Err(Stalled::Idle { time: 100 }));
    assert!(started.elapsed() < Duration::from_secs(2));
    assert_eq!(sim.logged(), vec!["tick"], "the world ran until idle");
    assert_eq!(sim.state(p), "pending");
}
