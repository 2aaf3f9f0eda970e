#![doc = include_str!("../README.md")]

// The layers, bottom up; each names only the ones above it in this list.
#[cfg(feature = "native")]
pub mod browser;
pub mod engine;
pub mod explore;
pub mod export;
#[cfg(feature = "native")]
pub mod gateway;
pub mod host;
pub mod report;
pub mod scenario;
pub mod script;
pub mod speccheck;
pub mod text;
pub mod webmcp;

pub use engine::prelude;
pub use engine::{Profile, RunError, Schedule, World};
pub use host::keys::{DocumentKey, NavigableKey, PromiseKey};
pub use host::value::{ErrorValue, Facet, Value};
pub use host::HostError;
pub use webmcp::observation::{ObservationResult, ObservedTool};
pub use webmcp::readiness::WaitOutcome;
pub use webmcp::ObservationKey;
