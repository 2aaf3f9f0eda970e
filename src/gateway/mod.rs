//! The agent gateway (`webmcp-ref serve`): a scenario subtest's simulated pages, served to
//! real agents over the Model Context Protocol.
//!
//! - [`driver`]: the thread that owns the world and binds its virtual clock to real time;
//!   [`Gateway`] is the handle requests go through.
//! - [`conditions`]: `webmcp_wait_for`'s conditions (the seed's wait-for tool, rebuilt for
//!   WebMCP).
//! - [`answers`]: markdown answers, and the notice every answer carrying page text starts with.
//! - [`tools`]: the MCP tools offered, and the MCP names of page tools.
//! - [`server`]: the MCP server over stdio (rmcp, on tokio).
//!
//! Nothing here takes part in the simulation's ordering: the engine's scheduler decides what
//! runs next; the gateway only decides when (on the real clock) and acts between units.

pub mod answers;
pub mod conditions;
pub mod driver;
pub mod server;
pub mod tools;

pub use answers::{Reply, UNTRUSTED_NOTICE};
pub use driver::{Clock, Gateway, LiveCounts, ServeError, ServeOptions, Served};
