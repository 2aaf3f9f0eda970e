//! The MCP server: the gateway's three tools and the served pages' tools, with
//! `notifications/tools/list_changed` to every client whenever a page's tool set changes: on
//! protocol version 2025-11-25 (and earlier) to every initialized session, on 2026-07-28
//! (no `initialize`; `server/discover` says what the server can do) on every
//! `subscriptions/listen` stream that asked for tool list changes. rmcp (3.11) speaks both
//! versions; the gateway supplies the listening.
//!
//! Two transports: stdio (the default of `webmcp-ref serve`; also any pair of byte streams,
//! through [`Lines`], which answers malformed JSON-RPC itself), and MCP's streamable HTTP on
//! loopback (`--http`), where several agents share the one served world and its clock, each
//! in an MCP session of its own.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, Implementation,
    ListToolsResult, PaginatedRequestParams, ServerCapabilities, ServerConfig, SubscriptionFilter,
    Tool, ToolAnnotations,
};
use rmcp::service::{NotificationContext, RequestContext, SubscriptionContext};
use rmcp::{ErrorData as McpError, RoleServer, ServerHandler, ServiceExt};
use tokio::io::{AsyncRead, AsyncWrite};

use super::answers::{Answer, Reply};
use super::handle::Gateway;
use super::http_limits as limits;
use super::tools::{self, PageTool, CALL, OBSERVE, WAIT_FOR};
use super::transport::Lines;
use super::Clock;

/// The MCP server of one served world, for one client.
#[derive(Clone)]
pub struct GatewayServer {
    gateway: Gateway,
}

impl GatewayServer {
    pub fn new(gateway: Gateway) -> GatewayServer {
        GatewayServer { gateway }
    }

    /// The gateway's own tools, then every page tool.
    pub async fn tools(&self) -> Vec<Tool> {
        let support = self.gateway.served().support;
        // Under the virtual clock a wait moves the page's clock: no tool is read-only there.
        let still = self.gateway.served().clock == Clock::RealTime;
        let own = |name: &'static str, title: &str, description, input, output| {
            let mut t = Tool::new(name, description, Arc::new(input))
                .with_annotations(ToolAnnotations::with_title(title).read_only(false));
            t.title = Some(title.to_string());
            t.output_schema = Some(Arc::new(output));
            t
        };
        let mut observe = own(
            OBSERVE,
            "Observe a WebMCP page",
            tools::observe_description(),
            tools::observe_schema(),
            tools::observe_output_schema(),
        );
        let mut wait_for = own(
            WAIT_FOR,
            "Wait for a WebMCP page condition",
            tools::wait_for_description(&support),
            tools::wait_for_schema(&support),
            tools::wait_for_output_schema(),
        );
        for t in [&mut observe, &mut wait_for] {
            if let Some(a) = t.annotations.as_mut() {
                a.read_only_hint = Some(still);
            }
        }
        let mut out = vec![
            observe,
            own(
                CALL,
                "Call a WebMCP page tool",
                tools::call_description(),
                tools::call_schema(),
                tools::call_output_schema(),
            ),
            wait_for,
        ];
        out.extend(self.gateway.page_tools().await.iter().map(page_tool));
        out
    }
}

fn page_tool(t: &PageTool) -> Tool {
    // The page's readOnlyHint is the page's claim: it is in the marked description, not in
    // the annotations an MCP host may act on.
    let title = t.mcp_title();
    let annotations = ToolAnnotations::with_title(title.clone());
    let mut tool = Tool::new(
        t.mcp_name.clone(),
        t.mcp_description(),
        Arc::new(t.mcp_input_schema()),
    )
    .with_annotations(annotations);
    tool.title = Some(title);
    tool.output_schema = Some(Arc::new(tools::call_output_schema()));
    tool
}

fn result(reply: Reply) -> CallToolResult {
    let mut r = if reply.is_error {
        CallToolResult::error(vec![ContentBlock::text(reply.text)])
    } else {
        CallToolResult::success(vec![ContentBlock::text(reply.text)])
    };
    r.structured_content = Some(reply.structured);
    r
}

/// The initialize `instructions`: the gateway's words, then what the scenario named (its
/// path, title and subtest), marked as untrusted.
pub fn instructions(gateway: &Gateway) -> String {
    let s = gateway.served();
    let mut a = Answer::new();
    a.line(format!(
        "Simulated WebMCP pages, served by webmcp-ref under the {} profile, on a {} clock. Use webmcp_observe to see the pages' tools once they are ready, webmcp_wait_for to wait for tools, readiness, navigations or toolchange events, and webmcp_call (or the page tools listed as pageP.toolN) to run a tool. Every answer also comes as structured content.",
        s.profile,
        match s.clock {
            Clock::RealTime => "real-time",
            Clock::Virtual => "virtual (it moves only while you wait)",
        }
    ));
    a.blank();
    a.line("The served scenario, as it names itself:");
    let served = serde_json::json!({"file": s.path, "title": s.title, "subtest": s.subtest});
    let block = a.page_block(
        "json",
        &serde_json::to_string_pretty(&served).unwrap_or_default(),
    );
    a.line(block);
    a.finish().text.trim_end().to_string()
}

impl ServerHandler for GatewayServer {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(
            ServerCapabilities::builder()
                .enable_tools()
                .enable_tool_list_changed()
                .build(),
        )
        .with_server_info(Implementation::new("webmcp-ref", env!("CARGO_PKG_VERSION")))
        .with_instructions(instructions(&self.gateway))
    }

    async fn on_initialized(&self, context: NotificationContext<RoleServer>) {
        // This client hears of every change of the pages' tool set until it goes away.
        let mut changes = self.gateway.tool_set_changes();
        let peer = context.peer;
        tokio::spawn(async move {
            changes.mark_unchanged();
            while changes.changed().await.is_ok() {
                if peer.notify_tool_list_changed().await.is_err() {
                    break;
                }
            }
        });
    }

    /// 2026-07-28's `subscriptions/listen`: a client that asks for tool list changes gets
    /// them (the only list the gateway has, as `server/discover`'s capabilities say).
    fn accepted_subscription_filter(
        &self,
        requested: &SubscriptionFilter,
    ) -> Option<SubscriptionFilter> {
        let mut accepted = SubscriptionFilter::new();
        accepted.tools_list_changed = requested.tools_list_changed;
        Some(accepted)
    }

    /// One `subscriptions/listen` stream: every change of the pages' tool set, until the
    /// client cancels it.
    async fn listen(&self, context: SubscriptionContext) -> Result<(), McpError> {
        let mut changes = self.gateway.tool_set_changes();
        changes.mark_unchanged();
        let wants_tools = context.accepted().tools_list_changed == Some(true);
        loop {
            tokio::select! {
                _ = context.cancelled() => return Ok(()),
                changed = changes.changed(), if wants_tools => {
                    if changed.is_err() {
                        // The served world is gone: the stream ends as the server stops.
                        return Ok(());
                    }
                    if context.sink().notify_tool_list_changed().await.is_err() {
                        return Ok(());
                    }
                }
            }
        }
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, McpError> {
        Ok(ListToolsResult::with_all_items(self.tools().await))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, McpError> {
        let args = request.arguments.unwrap_or_default();
        let ct = context.ct.clone();
        let reply = match request.name.as_ref() {
            OBSERVE => self.gateway.observe(&args, ct.cancelled()).await,
            CALL => self.gateway.call(&args, ct.cancelled()).await,
            WAIT_FOR => self.gateway.wait_for(&args, ct.cancelled()).await,
            page_tool => {
                self.gateway
                    .call_page_tool(page_tool, args, ct.cancelled())
                    .await
            }
        };
        Ok(result(reply).into())
    }
}

/// Why the MCP server stopped before its client went away.
#[derive(Debug, thiserror::Error)]
pub enum TransportError {
    /// The server's runtime could not start, or the HTTP listener could not.
    #[error(transparent)]
    Runtime(#[from] std::io::Error),
    /// The client did not begin with MCP's initialization.
    #[error(transparent)]
    Initialize(Box<rmcp::service::ServerInitializeError>),
    /// The task serving the client ended abnormally.
    #[error(transparent)]
    Stopped(#[from] tokio::task::JoinError),
    /// `--http` names an address off this machine.
    #[error("--http {0}: the HTTP transport listens on loopback only (127.0.0.1, ::1 or localhost); several agents share the served world through it, and nothing else should reach it")]
    NotLoopback(String),
}

/// Serves the gateway over a transport rmcp takes as it is, until the client goes away.
pub async fn serve<T, E, A>(gateway: Gateway, transport: T) -> Result<(), TransportError>
where
    T: rmcp::transport::IntoTransport<RoleServer, E, A>,
    E: std::error::Error + Send + Sync + 'static,
{
    let service = GatewayServer::new(gateway)
        .serve(transport)
        .await
        .map_err(|e| TransportError::Initialize(Box::new(e)))?;
    service.waiting().await?;
    Ok(())
}

/// Serves the gateway on JSON-RPC lines read from `input` and written to `output`, malformed
/// messages answered by [`Lines`]; returns as soon as the input ends, whatever is under way.
pub async fn serve_lines<R, W>(gateway: Gateway, input: R, output: W) -> Result<(), TransportError>
where
    R: AsyncRead + Send + Unpin + 'static,
    W: AsyncWrite + Send + Unpin + 'static,
{
    let (lines, mut closed) = Lines::new(input, output);
    let service = tokio::select! {
        s = GatewayServer::new(gateway).serve(lines) => match s {
            Ok(s) => s,
            // The agent closed the connection before its first request: it went away, as
            // `serve --help` says (exit 0), not a failure of the transport.
            Err(rmcp::service::ServerInitializeError::ConnectionClosed(_)) => return Ok(()),
            Err(e) => return Err(TransportError::Initialize(Box::new(e))),
        },
        _ = closed.wait_for(|c| *c) => return Ok(()),
    };
    let ct = service.cancellation_token();
    tokio::select! {
        quit = service.waiting() => { quit?; }
        _ = closed.wait_for(|c| *c) => ct.cancel(),
    }
    Ok(())
}

fn runtime() -> std::io::Result<tokio::runtime::Runtime> {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
}

/// `webmcp-ref serve`: the MCP server over this process's stdin and stdout. Returns as soon
/// as stdin ends; requests still under way are dropped with the runtime.
pub fn serve_stdio(gateway: Gateway) -> Result<(), TransportError> {
    let runtime = runtime()?;
    let served = runtime.block_on(serve_lines(
        gateway,
        tokio::io::stdin(),
        tokio::io::stdout(),
    ));
    runtime.shutdown_timeout(Duration::from_millis(20));
    served
}

/// The origins `serve --http` accepts in an `Origin` header: http and https on this machine's
/// loopback names, any port.
pub const LOOPBACK_ORIGINS: [&str; 6] = [
    "http://localhost:*",
    "http://127.0.0.1:*",
    "http://[::1]:*",
    "https://localhost:*",
    "https://127.0.0.1:*",
    "https://[::1]:*",
];

/// Whether an address given to `--http` is on this machine's loopback.
pub fn is_loopback(addr: &SocketAddr) -> bool {
    addr.ip().is_loopback()
}

/// Parses `--http`'s value: `PORT` (on 127.0.0.1), or `HOST:PORT` with a loopback host.
pub fn http_address(given: &str) -> Result<SocketAddr, TransportError> {
    let not_loopback = || TransportError::NotLoopback(given.to_string());
    let candidate = if given.chars().all(|c| c.is_ascii_digit()) {
        format!("127.0.0.1:{given}")
    } else if let Some(port) = given.strip_prefix("localhost:") {
        format!("127.0.0.1:{port}")
    } else {
        given.to_string()
    };
    let addr: SocketAddr = candidate.parse().map_err(|_| {
        TransportError::Runtime(std::io::Error::new(
            std::io::ErrorKind::InvalidInput,
            format!("--http {given}: give PORT or HOST:PORT (127.0.0.1:8765, [::1]:8765)"),
        ))
    })?;
    if !is_loopback(&addr) {
        return Err(not_loopback());
    }
    Ok(addr)
}

/// `webmcp-ref serve --http ADDR`: MCP's streamable HTTP at `http://ADDR/mcp`, one MCP
/// session per client, every session on the one served world. `ready` is told the address
/// actually bound (port 0 picks a free one). Runs until the process is stopped.
pub fn serve_http(
    gateway: Gateway,
    addr: SocketAddr,
    bounds: limits::HttpLimits,
    ready: impl FnOnce(SocketAddr),
) -> Result<(), TransportError> {
    use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
    use rmcp::transport::streamable_http_server::{
        StreamableHttpServerConfig, StreamableHttpService,
    };

    let runtime = runtime()?;
    runtime.block_on(async move {
        let listener = tokio::net::TcpListener::bind(addr).await?;
        let bound = listener.local_addr()?;
        let mut config = StreamableHttpServerConfig::default();
        config.allowed_hosts = vec![
            "localhost".into(),
            "127.0.0.1".into(),
            "::1".into(),
            "[::1]".into(),
            format!("localhost:{}", bound.port()),
            bound.to_string(),
        ];
        // The streamable HTTP transport must check `Origin` (a web page the user visits could
        // otherwise drive the served world from the browser): a request with no Origin (an
        // agent that is not a browser) or a loopback one passes; any other, `null` included,
        // gets 403.
        config = config.with_allowed_origins(LOOPBACK_ORIGINS);
        let sessions = limits::Sessions::new(bounds);
        limits::expire_idle_sessions(sessions.clone());
        let service = StreamableHttpService::<_, LocalSessionManager>::new(
            move || Ok(GatewayServer::new(gateway.clone())),
            sessions.manager.clone(),
            config,
        );
        let connections = Arc::new(tokio::sync::Semaphore::new(bounds.max_connections));
        ready(bound);
        loop {
            let (mut stream, _) = match listener.accept().await {
                Ok(c) => c,
                Err(e) => {
                    eprintln!("webmcp-ref serve: accepting a connection failed: {e}");
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    continue;
                }
            };
            let Ok(permit) = connections.clone().try_acquire_owned() else {
                tokio::spawn(async move {
                    use tokio::io::AsyncWriteExt as _;
                    let _ = stream.write_all(limits::TOO_MANY_CONNECTIONS).await;
                });
                continue;
            };
            let service = service.clone();
            let sessions = sessions.clone();
            tokio::spawn(async move {
                let _permit = permit;
                let answer = hyper::service::service_fn(
                    move |request: hyper::Request<hyper::body::Incoming>| {
                        let service = service.clone();
                        let sessions = sessions.clone();
                        async move {
                            if request.uri().path() != "/mcp" {
                                return Ok::<_, std::convert::Infallible>(not_found());
                            }
                            if limits::begins_session(&request) && sessions.full().await {
                                return Ok(limits::refusal(
                                    hyper::StatusCode::SERVICE_UNAVAILABLE,
                                    &format!("{} MCP sessions are open, the most there may be (--max-sessions): close one (DELETE /mcp with its Mcp-Session-Id), or wait for one to go idle for {} (--session-idle)", bounds.max_sessions, limits::said(bounds.session_idle)),
                                ));
                            }
                            sessions.touch(request.headers());
                            let request = match limits::read_body(request, bounds.body_timeout).await {
                                Ok(r) => r,
                                Err(refused) => return Ok(refused),
                            };
                            let ends_session = request.method() == hyper::Method::DELETE;
                            let mut response = service.handle(request).await;
                            sessions.touch(response.headers());
                            // A session ended is done, not pending: clients expect 200.
                            if ends_session && response.status() == hyper::StatusCode::ACCEPTED {
                                *response.status_mut() = hyper::StatusCode::OK;
                            }
                            Ok(response)
                        }
                    },
                );
                let io = hyper_util::rt::TokioIo::new(stream);
                if let Err(e) = hyper::server::conn::http1::Builder::new()
                    .timer(hyper_util::rt::TokioTimer::new())
                    .header_read_timeout(bounds.header_timeout)
                    .serve_connection(io, answer)
                    .await
                {
                    if !e.is_incomplete_message() {
                        eprintln!("webmcp-ref serve: an HTTP connection failed: {e}");
                    }
                }
            });
        }
    })
}

type Body = http_body_util::combinators::BoxBody<bytes::Bytes, std::convert::Infallible>;

fn not_found() -> hyper::Response<Body> {
    use http_body_util::BodyExt;
    let body = http_body_util::Full::new(bytes::Bytes::from_static(
        b"webmcp-ref serve: the MCP endpoint is /mcp\n",
    ))
    .boxed();
    let mut r = hyper::Response::new(body);
    *r.status_mut() = hyper::StatusCode::NOT_FOUND;
    r
}
