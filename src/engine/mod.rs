//! The engine: the world that composes the layers below it (the host, WebMCP, the page
//! script), the profile it runs under, the schedule that orders it, what a run records (the
//! trace, coverage, findings), and the hash its state is compared by.
//!
//! How the layer is built: [`World`] holds each layer's state and implements each layer's trait
//! (`Host`, `WebMcpHost`, `ScriptHost`); the host's seam is dispatched in `world.rs`. It names
//! the layers below, and nothing above (the scenario language and the tools built on runs).

pub mod future;
pub mod hash;
pub mod marks;
pub mod profile;
pub mod schedule;
pub mod trace;
pub mod world;

use thiserror::Error;

use crate::host::budget::BudgetStop;
use crate::host::spec::Algorithm;

pub use profile::{Profile, ProfileError};
pub use schedule::{Schedule, ScheduleError, Scheduler};
pub use world::World;

/// Errors while running the simulation.
#[derive(Debug, Error, Clone, PartialEq, Eq)]
pub enum RunError {
    /// A budget stopped the run (see `host::budget`).
    #[error("{0}")]
    Budget(BudgetStop),
    #[error(transparent)]
    Schedule(#[from] ScheduleError),
}

/// Every algorithm of every layer, indexed by id (the host's first, then WebMCP's).
pub fn algorithms() -> impl Iterator<Item = &'static Algorithm> {
    crate::host::spec::ALGORITHMS
        .iter()
        .chain(crate::webmcp::ALGORITHMS.iter())
        .copied()
}

/// The algorithm with an id.
pub fn algorithm(id: usize) -> Option<&'static Algorithm> {
    algorithms().nth(id)
}

/// Every layer's algorithm trait, for `use webmcp_ref::prelude::*`.
pub mod prelude {
    pub use crate::host::prelude::*;
    pub use crate::script::prelude::*;
    pub use crate::webmcp::prelude::*;
}

#[cfg(test)]
mod tests {
    #[test]
    fn algorithm_ids_are_their_positions_and_fit_the_coverage_bits() {
        for (i, a) in super::algorithms().enumerate() {
            assert_eq!(a.id, i, "{}", a.name);
            assert!(a.steps.len() <= 64, "{}", a.name);
        }
    }
}
