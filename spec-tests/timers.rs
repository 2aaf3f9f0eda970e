//! The host's timers: HTML's "run steps after a timeout", on the virtual clock.
//!
//! <https://html.spec.whatwg.org/multipage/timers-and-user-prompts.html#run-steps-after-a-timeout>
//!
//! A `setTimeout()` timer of a Window waits until its document has been fully active for the
//! timeout, not necessarily consecutively: while the document is in the bfcache (or a document
//! it is in is), the timer does not count, and it counts on from where it was once the document
//! is restored.

use crate::common;

use common::Sim;
#[allow(unused_imports)]
use webmcp_ref::prelude::*;
use webmcp_ref::DocumentKey;

/// A page `top` whose task sets `setTimeout(log "fired", 500)` at time 0.
fn page_with_timer(sim: &mut Sim) -> DocumentKey {
    let top = sim.page("top", "https://a.test/");
    sim.task(top, "after 500ms: log \"fired\"");
    sim.flush();
    top
}

#[test]
fn run_steps_after_a_timeout_a_page_always_fully_active_fires_on_time() {
    let mut sim = Sim::new("spec");
    page_with_timer(&mut sim);
    sim.run();
    assert_eq!(sim.logged_at(), vec![("fired".to_string(), 500)]);
}

#[test]
fn run_steps_after_a_timeout_time_in_the_bfcache_does_not_count() {
    // Set at 0 for 500 ms; in the bfcache from 100 ms to 800 ms: 100 ms counted before, the
    // other 400 ms after the restore, so it fires at 1200 ms.
    let mut sim = Sim::new("spec");
    let top = page_with_timer(&mut sim);
    sim.run_for(100);
    let next = sim
        .w
        .navigate(top, "https://a.test/next", "next", true)
        .unwrap();
    sim.run_for(700);
    assert_eq!(sim.now(), 800);
    assert!(sim.logged().is_empty(), "the page was in the bfcache");
    sim.w.go_back(next).unwrap();
    sim.run();
    assert_eq!(sim.logged_at(), vec![("fired".to_string(), 1200)]);
}

#[test]
fn run_steps_after_a_timeout_an_iframes_timer_waits_while_its_page_is_in_the_bfcache() {
    // The iframe's document is not fully active while the page is in the bfcache either.
    let mut sim = Sim::new("spec");
    let top = sim.page("top", "https://a.test/");
    let child = sim.frame(top, "child", "https://a.test/child.html");
    sim.task(child, "after 500ms: log \"child fired\"");
    sim.flush();
    sim.run_for(300);
    let next = sim
        .w
        .navigate(top, "https://a.test/next", "next", true)
        .unwrap();
    sim.run_for(1000);
    sim.w.go_back(next).unwrap();
    sim.run();
    assert_eq!(sim.logged_at(), vec![("child fired".to_string(), 1500)]);
}

#[test]
fn run_steps_after_a_timeout_a_destroyed_documents_timer_never_fires() {
    let mut sim = Sim::new("spec");
    let top = page_with_timer(&mut sim);
    sim.run_for(100);
    sim.w
        .navigate(top, "https://a.test/next", "next", false)
        .unwrap();
    sim.run();
    assert!(sim.logged().is_empty(), "{:?}", sim.logged_at());
}
