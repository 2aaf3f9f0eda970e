//! Invariants the explorer checks after every unit of every schedule, each with the profiles
//! it holds under.
//!
//! Each invariant is a statement about every object of a kind (every document, every waiter,
//! every timer, every listener), checked object by object, and every object's check is a
//! check after the unit in the sense of `footprint::post_check`: it joins the unit's
//! footprint only when it reads something the unit changed. A check that reads nothing the
//! unit changed has the result it had before the unit, so the partial-order reduction loses
//! no violation (see the explorer's argument). Which objects there are is not noted: the
//! unit that adds one writes it. The readiness index's check is the engine checking its own
//! index, not a property of the text: it reads every document of a tree, is not noted, and
//! holds on every state the search visits.

use crate::engine::world::World;
use crate::host::parallel::{ParallelStepKind, QueueState};
use crate::host::shared::footprint;
use crate::host::timers::TimerKind;
use crate::prelude::*;
use crate::webmcp::steps::{ParallelStep, TimerStep};
use crate::webmcp::switches::{SettleUpdatesToolsReady, ToolsReadyLifecycle};

/// An invariant: its name, when it applies, and its check.
pub struct Invariant {
    pub name: &'static str,
    pub holds_under: &'static str,
    pub applies: fn(&World) -> bool,
    /// Every violation, one per object that breaks it.
    pub check: fn(&World) -> Vec<Violation>,
}

/// Checks each of `keys` (enumerated without noting it) with `check`, each a check after the
/// unit. A check reads the same objects whatever their values (it decides nothing before it
/// has read them all), which is what lets it leave a footprint alone when the unit changed
/// none of them.
fn each<K: Copy>(
    keys: impl FnOnce() -> Vec<K>,
    check: impl Fn(K) -> Result<(), Violation>,
) -> Vec<Violation> {
    footprint::untracked(keys)
        .into_iter()
        .filter_map(|k| footprint::post_check(|| check(k)).err())
        .collect()
}

/// How a world breaks an invariant, in a sentence about the state it found.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct Violation(pub String);

impl From<&str> for Violation {
    fn from(what: &str) -> Violation {
        Violation(what.into())
    }
}

/// Every invariant.
pub const INVARIANTS: &[Invariant] = &[
    Invariant {
        name: "tools-ready-is-pending-set-empty",
        holds_under: "settle-updates-tools-ready=always and tools-ready-lifecycle=none (spec, chromium, and the proposals that keep them)",
        applies: |w| {
            w.switches().settle_updates_tools_ready == SettleUpdatesToolsReady::Always
                && w.switches().tools_ready_lifecycle == ToolsReadyLifecycle::None
        },
        check: |w| {
            // Every change to the pending set is followed, in the same unit, by "update the
            // tools-ready state"; so between units the two agree for every document.
            each(
                || w.documents.keys().collect(),
                |key| {
                    let pending = w.pending_tool_readiness_promises(key);
                    let ready = w.tools_ready(key);
                    let label = &w.documents[key].label;
                    if ready != (pending == 0) {
                        return Err(Violation(format!(
                            "{label} has tools-ready {ready} with {pending} pending tool readiness promise(s)"
                        )));
                    }
                    Ok(())
                },
            )
        },
    },
    Invariant {
        name: "readiness-index-matches-are-all-ready",
        holds_under: "every profile",
        applies: |_| true,
        check: |w| {
            if footprint::untracked(|| w.readiness_index_is_consistent()) {
                Vec::new()
            } else {
                vec!["a traversable's count of not-ready documents disagrees with areAllReady".into()]
            }
        },
    },
    Invariant {
        name: "scheduler-indexes-match-the-queues",
        holds_under: "every profile",
        applies: |_| true,
        check: |w| {
            // The engine checking its own indexes (the runnable parallel queues, the timers
            // due), as the readiness index's check: not noted.
            footprint::untracked(|| w.scheduler_index_problems())
                .into_iter()
                .map(Violation)
                .collect()
        },
    },
    Invariant {
        name: "a-wait-ends-within-its-timeout",
        holds_under: "every profile",
        applies: |_| true,
        check: |w| {
            let timeout = w.switches().tools_ready_timeout_ms;
            each(
                || w.webmcp().waiters.keys().collect(),
                |key| {
                    let waiter = &w.webmcp().waiters[key];
                    if w.now.saturating_sub(waiter.started_at) > timeout {
                        return Err(Violation(format!(
                            "a wait for tools to be ready begun at {} ms is still on at {} ms (timeout {timeout} ms)",
                            waiter.started_at, w.now
                        )));
                    }
                    Ok(())
                },
            )
        },
    },
    Invariant {
        name: "no-waiter-timer-or-listener-left-behind",
        holds_under: "every profile",
        applies: |_| true,
        check: |w| {
            // A waiter has its deadline timer and blocks its queue while it waits; every
            // deadline timer belongs to a waiter; every listener is on its target's list.
            let mut out = each(
                || w.webmcp().waiters.keys().collect(),
                |key| {
                    // Everything this check may read, read first (see `each`).
                    let waiter = &w.webmcp().waiters[key];
                    let has_timer = w.timers.contains_key(waiter.deadline);
                    let queue = w.parallel_queues.get(waiter.queue);
                    if waiter.outcome.is_none() && !has_timer {
                        return Err("a waiting waiter has lost its deadline timer".into());
                    }
                    let Some(queue) = queue else {
                        return Err("a waiter's parallel queue is gone".into());
                    };
                    let blocked = queue.state != QueueState::Ready
                        && matches!(
                            queue.steps.front().map(|s| &s.kind),
                            Some(ParallelStepKind::Webmcp(ParallelStep::AfterWait { waiter, .. })) if *waiter == key
                        );
                    if !blocked {
                        return Err("a waiter's parallel queue is no longer waiting for it".into());
                    }
                    if waiter.outcome.is_some() && !matches!(queue.state, QueueState::Woken { .. }) {
                        return Err("an ended wait has not woken its queue".into());
                    }
                    Ok(())
                },
            );
            out.extend(each(
                || w.timers.keys().collect(),
                |key| {
                    if let TimerKind::Webmcp(TimerStep::WaitDeadline { waiter }) = w.timers[key].kind {
                        if !w.webmcp().waiters.contains_key(waiter) {
                            return Err("a deadline timer outlived its wait".into());
                        }
                    }
                    Ok(())
                },
            ));
            out.extend(each(
                || w.listeners.keys().collect(),
                |key| {
                    let l = &w.listeners[key];
                    let list = w.read_listener_list(l.target);
                    if !list.contains(&key) {
                        return Err(Violation(format!(
                            "a {} listener is in no target's list",
                            l.event_type
                        )));
                    }
                    Ok(())
                },
            ));
            out
        },
    },
];

/// Runs every applicable invariant.
pub fn check_all(world: &World) -> Vec<String> {
    INVARIANTS
        .iter()
        .filter(|i| (i.applies)(world))
        .flat_map(|i| {
            (i.check)(world)
                .into_iter()
                .map(move |e| format!("{}: {e}", i.name))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::profile::Profile;

    fn violations(w: &World) -> Vec<String> {
        check_all(w)
    }

    #[test]
    fn a_healthy_world_breaks_no_invariant() {
        let mut w = World::new(Profile::spec());
        let top = w.open_page("top", "https://a.test/").unwrap();
        let p = w.new_promise(top);
        w.wait_for_tools_until(top, crate::Value::Promise(p));
        w.observe(top, "o");
        w.flush().unwrap();
        assert!(violations(&w).is_empty(), "{:?}", violations(&w));
    }

    #[test]
    fn each_check_catches_what_it_is_about() {
        let mut w = World::new(Profile::spec());
        let top = w.open_page("top", "https://a.test/").unwrap();
        // tools-ready out of step with the pending set.
        w.webmcp_mut().tools_ready[top] = false;
        assert!(violations(&w)
            .iter()
            .any(|v| v.starts_with("tools-ready-is-pending-set-empty")));
        // The readiness index disagreeing with areAllReady (the document is not ready, the
        // count says everything is).
        assert!(violations(&w)
            .iter()
            .any(|v| v.starts_with("readiness-index-matches-are-all-ready")));
        w.webmcp_mut().tools_ready[top] = true;
        assert!(violations(&w).is_empty());
        // A waiter whose wait outlived its timeout, or lost its timer.
        let p = w.new_promise(top);
        w.wait_for_tools_until(top, crate::Value::Promise(p));
        w.observe(top, "o");
        w.flush().unwrap();
        let (key, deadline) = w
            .webmcp()
            .waiters
            .iter()
            .map(|(k, wt)| (k, wt.deadline))
            .next()
            .unwrap();
        w.now = 10_000;
        assert!(violations(&w)
            .iter()
            .any(|v| v.starts_with("a-wait-ends-within-its-timeout")));
        w.now = 0;
        w.remove_timer(deadline);
        assert!(
            violations(&w)
                .iter()
                .any(|v| v.contains("lost its deadline timer")),
            "{key:?}"
        );
    }

    #[test]
    fn the_pending_set_invariant_does_not_apply_where_the_text_lets_them_differ() {
        let w = World::new(Profile::named("pr373-r1").unwrap());
        assert!(!(INVARIANTS[0].applies)(&w));
        let w = World::new(Profile::named("lifecycle-load").unwrap());
        assert!(!(INVARIANTS[0].applies)(&w));
    }
}
