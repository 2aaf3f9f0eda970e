//! The simulated web platform: what WebMCP's algorithms run on.

pub mod abort;
pub mod event_loop;
pub mod events;
pub mod interpreter;
pub mod keys;
pub mod navigable;
pub mod origin;
pub mod permissions;
pub mod promise;
pub mod script;
pub mod shared;
pub mod value;
