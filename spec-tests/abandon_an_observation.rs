//! Abandon an observation (engine-defined): the browser agent takes back an observation it
//! asked for. 1: one still queued leaves the AI agent queue unrun; 2: one waiting for tools to
//! be ready stops waiting (2.1 its timeout and record go, 2.2 the queue drops its remaining
//! steps and goes on); 3: one already done has nothing to undo. The observations queued
//! behind an abandoned one do not wait for it.

use crate::common;

use common::Sim;
#[allow(unused_imports)]
use webmcp_ref::prelude::*;
use webmcp_ref::webmcp::ABANDON_AN_OBSERVATION;
use webmcp_ref::WaitOutcome;

/// A page whose tools are never ready (its promise never settles).
fn never_ready() -> (Sim, webmcp_ref::host::keys::DocumentKey) {
    let mut sim = Sim::new("spec");
    let top = sim.page("top", "https://a.test/");
    sim.promise_in(top, "p");
    sim.task(top, "top.waitForToolsUntil(p)");
    sim.run();
    (sim, top)
}

#[test]
fn abandon_an_observation_step_2_ends_the_wait_and_the_next_observation_begins_at_once() {
    let (mut sim, top) = never_ready();
    let first = sim.observe(top, "first");
    let second = sim.observe(top, "second");
    let third = sim.observe(top, "third");
    sim.run_for(1000);
    assert_eq!(sim.live_waiters(), 1, "the first observation waits");
    assert!(sim.abandon_an_observation(first));
    assert!(sim.reached(&ABANDON_AN_OBSERVATION, "2"));
    assert!(sim.reached(&ABANDON_AN_OBSERVATION, "2.1"));
    assert!(sim.reached(&ABANDON_AN_OBSERVATION, "2.2"));
    sim.run();
    assert!(sim.observation_result(first).is_none());
    assert!(sim.observation(first).abandoned);
    let r = sim.observation_result(second).expect("the second observation finished");
    assert_eq!(r.outcome, WaitOutcome::TimedOut);
    // It began when the first was abandoned (1000 ms in), not after the first's timeout;
    // the third waited for it.
    assert_eq!((r.started_at, r.ended_at), (1000, 6000));
    let r = sim.observation_result(third).expect("the third observation finished");
    assert_eq!((r.started_at, r.ended_at), (6000, 11000));
    assert_eq!(sim.live_waiters(), 0);
}

#[test]
fn abandon_an_observation_step_1_takes_a_queued_one_off_the_ai_agent_queue() {
    let (mut sim, top) = never_ready();
    let first = sim.observe(top, "first");
    let second = sim.observe(top, "second");
    sim.run_for(10);
    assert!(sim.abandon_an_observation(second));
    assert!(sim.reached(&ABANDON_AN_OBSERVATION, "1"));
    sim.run();
    assert!(sim.observation_result(second).is_none());
    assert!(sim.observation(second).started_at.is_none(), "it never began");
    assert_eq!(
        sim.observation_result(first).map(|r| r.outcome),
        Some(WaitOutcome::TimedOut)
    );
}

#[test]
fn abandon_an_observation_step_3_leaves_a_finished_observation_as_it_was() {
    let mut sim = Sim::new("spec");
    let top = sim.page("top", "https://a.test/");
    let o = sim.observe(top, "done");
    sim.run();
    assert!(!sim.abandon_an_observation(o));
    assert!(sim.reached(&ABANDON_AN_OBSERVATION, "3"));
    assert_eq!(
        sim.observation_result(o).map(|r| r.outcome),
        Some(WaitOutcome::Ready)
    );
}
