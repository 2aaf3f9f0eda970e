//! The agent gateway (`webmcp-ref serve`): a scenario subtest's simulated pages, served to
//! real agents over the Model Context Protocol.
//!
//! - [`handle`]: [`Gateway`], the handle requests go through, and how serving starts.
//! - [`arguments`]: the gateway's tools' arguments, checked.
//! - [`driver`]: the thread that owns the world, its loop, and the clock it binds to real time.
//! - `keeper`: the thread that answers a deadline the driver cannot, while the page is inside
//!   one long unit of work.
//! - `pages`: page lookup: which page a request names, and the tools of every open page.
//! - the request handlers: `observe` (`webmcp_observe`), `call` (`webmcp_call` and page
//!   tools), `wait_for` (`webmcp_wait_for`).
//! - [`conditions`]: `webmcp_wait_for`'s conditions (the seed's wait-for tool, rebuilt for
//!   WebMCP), and the page as a wait reads it.
//! - [`answers`]: markdown answers and their structured content, and the one rule for page
//!   text: marked, quoted, never anywhere else.
//! - [`tools`]: the MCP tools offered, and the gateway's own MCP names of page tools.
//! - [`server`]: the MCP server (rmcp, on tokio), over stdio or streamable HTTP.
//! - [`transport`]: the JSON-RPC lines under it, malformed messages answered.
//! - [`http_limits`]: what HTTP clients can hold of the server: connections, sessions, the time
//!   and bytes of a request.
//!
//! Nothing here takes part in the simulation's ordering: the engine's scheduler decides what
//! runs next; the gateway only decides when (on the real clock) and acts between units.

pub mod answers;
pub mod arguments;
mod call;
pub mod conditions;
pub mod driver;
pub mod handle;
pub mod http_limits;
mod keeper;
mod observe;
mod pages;
pub mod server;
pub mod tools;
pub mod transport;
mod wait_for;

pub use answers::{Reply, UNTRUSTED_KEY, UNTRUSTED_NOTICE};
pub use driver::Clock;
pub use handle::{Gateway, LiveCounts, ServeError, ServeOptions, Served};
