#![doc = include_str!("../README.md")]

pub mod browser;
pub mod explore;
pub mod export;
pub mod gateway;
pub mod platform;
pub mod profile;
pub mod report;
pub mod scenario;
pub mod schedule;
pub mod trace;
pub mod webmcp;
pub mod world;

use thiserror::Error;

pub use platform::keys::{DocumentKey, NavigableKey, ObservationKey, PromiseKey};
pub use platform::value::{ErrorValue, Value};
pub use profile::Profile;
pub use schedule::Schedule;
pub use webmcp::observation::{ObservationResult, ObservedTool};
pub use webmcp::readiness::WaitOutcome;
pub use world::World;

/// Errors of the world's harness-level actions (the things a scenario does between units).
#[derive(Debug, Error, Clone, PartialEq, Eq)]
pub enum WorldError {
    #[error("`{url}` is not a URL: {reason}")]
    BadUrl { url: String, reason: String },
    #[error("{0} is not fully active, so it cannot hold a new iframe")]
    NotFullyActive(String),
    #[error("{0} is not in an iframe")]
    NotAnIframe(String),
    #[error("{0} was already removed or closed")]
    AlreadyRemoved(String),
    #[error("{0} is not the active document of its navigable")]
    NotActive(String),
    #[error("{0}'s navigable has no earlier session history entry")]
    NoHistory(String),
    #[error("{0} is not in the back/forward cache, so it cannot be restored")]
    NotInBfcache(String),
    #[error("{0} is not a top-level document")]
    NotTopLevel(String),
}

/// Errors while running the simulation.
#[derive(Debug, Error, Clone, PartialEq, Eq)]
pub enum RunError {
    #[error("the world did not become idle within {units} units of work (virtual time {time} ms): something re-arms itself forever")]
    Budget { units: u64, time: u64 },
    #[error(transparent)]
    Schedule(#[from] schedule::ScheduleError),
}
