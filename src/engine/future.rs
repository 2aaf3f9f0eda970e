//! Awaiting the simulation: an embedder (a spec-test, a tool, an agent gateway) writes
//! `world.observed(top).await` or `world.settled(p).await`, and the future drives the
//! deterministic simulation, unit by unit on the virtual clock, until what it waits for has
//! happened. No thread and no wall clock are involved: an executor that polls it (such as
//! `futures::executor::block_on`) only decides when the units run, never their order, which
//! stays the schedule's.

use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};

use thiserror::Error;

use super::{RunError, World};
use crate::host::keys::{DocumentKey, PromiseKey};
use crate::host::promise::PromiseState;
use crate::webmcp::observation::{ObservationResult, Observations};

/// How many units one poll runs before it lets the executor do something else.
const UNITS_PER_POLL: u64 = 10_000;

/// Why an awaited condition will never hold.
#[derive(Debug, Error, Clone, PartialEq, Eq)]
pub enum Stalled {
    #[error("the world became idle (virtual time {time} ms) and what was awaited never happened")]
    Idle { time: u64 },
    #[error(transparent)]
    Run(#[from] RunError),
}

/// What a future waits for: a value read off the world, once there is one.
type Done<'w, T> = Box<dyn FnMut(&World) -> Option<T> + 'w>;

/// A future that drives a world until `done` gives a value.
pub struct Until<'w, T> {
    world: &'w mut World,
    done: Done<'w, T>,
    units: u64,
}

impl<T> Future for Until<'_, T> {
    type Output = Result<T, Stalled>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let this = &mut *self;
        for _ in 0..UNITS_PER_POLL {
            if let Some(value) = (this.done)(this.world) {
                return Poll::Ready(Ok(value));
            }
            match this.world.step() {
                Ok(true) => this.units += 1,
                Ok(false) => {
                    return Poll::Ready(Err(Stalled::Idle {
                        time: this.world.now(),
                    }))
                }
                Err(e) => return Poll::Ready(Err(e.into())),
            }
            if this.units >= this.world.budgets.max_units {
                let units = this.units;
                return Poll::Ready(Err(this.world.stop_for_units(units).into()));
            }
        }
        cx.waker().wake_by_ref();
        Poll::Pending
    }
}

impl World {
    /// Drives the world until `done` gives a value.
    pub fn until<'w, T: 'w>(
        &'w mut self,
        done: impl FnMut(&World) -> Option<T> + 'w,
    ) -> Until<'w, T> {
        Until {
            world: self,
            done: Box::new(done),
            units: 0,
        }
    }

    /// The browser agent observes the page whose top-level document is `top`; the future ends
    /// with the observation's result.
    pub fn observed(&mut self, top: DocumentKey) -> Until<'_, ObservationResult> {
        let label = format!("o{}", self.webmcp.observations.len() + 1);
        let observation = self.observe(top, &label);
        self.until(move |w| w.observation_result(observation).cloned())
    }

    /// The future ends when `promise` has settled, with its state.
    pub fn settled(&mut self, promise: PromiseKey) -> Until<'_, PromiseState> {
        self.until(move |w| {
            let state = w.promise_state(promise);
            (*state != PromiseState::Pending).then(|| state.clone())
        })
    }
}
