//! What clients of `serve --http` can hold of the server, bounded: connections
//! ([`MAX_CONNECTIONS`] at once), MCP sessions ([`MAX_SESSIONS`] at once, each closed after
//! [`SESSION_IDLE`] with no request), and the time and bytes of one request (its header within
//! [`HEADER_TIMEOUT`], its body within [`BODY_TIMEOUT`] and [`MAX_BODY`]). A client past a bound
//! gets an HTTP error that says which, never a server that grows or waits without end. The
//! constants are the defaults of [`HttpLimits`], which `serve`'s flags change.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use bytes::Bytes;
use http_body_util::{BodyExt, Full, Limited};
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::session::SessionManager;

/// The most HTTP connections open at once; one past it is answered 503 and closed.
pub const MAX_CONNECTIONS: usize = 256;
/// The most MCP sessions at once; an `initialize` past it is answered 503.
pub const MAX_SESSIONS: usize = 64;
/// A session that has had no request for this long is closed (its id then answers 404).
pub const SESSION_IDLE: Duration = Duration::from_secs(300);
/// How long a client may take to send a request's header.
pub const HEADER_TIMEOUT: Duration = Duration::from_secs(10);
/// How long a client may take to send a request's body.
pub const BODY_TIMEOUT: Duration = Duration::from_secs(30);
/// The most bytes a request's body may hold (as a line of the stdio transport).
pub const MAX_BODY: usize = super::transport::MAX_LINE;

type Body = http_body_util::combinators::BoxBody<Bytes, std::convert::Infallible>;

/// The bounds one `serve --http` keeps.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HttpLimits {
    pub max_connections: usize,
    pub max_sessions: usize,
    pub session_idle: Duration,
    pub header_timeout: Duration,
    pub body_timeout: Duration,
}

impl Default for HttpLimits {
    fn default() -> Self {
        HttpLimits {
            max_connections: MAX_CONNECTIONS,
            max_sessions: MAX_SESSIONS,
            session_idle: SESSION_IDLE,
            header_timeout: HEADER_TIMEOUT,
            body_timeout: BODY_TIMEOUT,
        }
    }
}

/// A duration as `serve`'s messages say it: whole seconds, or milliseconds below one.
pub fn said(d: Duration) -> String {
    if d.as_millis().is_multiple_of(1000) {
        format!("{} s", d.as_secs())
    } else {
        format!("{} ms", d.as_millis())
    }
}

/// The sessions of the server, and when each was last used.
pub struct Sessions {
    pub manager: Arc<LocalSessionManager>,
    last_used: Mutex<HashMap<String, Instant>>,
    limits: HttpLimits,
}

const SESSION_HEADER: &str = "mcp-session-id";

impl Sessions {
    pub fn new(limits: HttpLimits) -> Arc<Sessions> {
        Arc::new(Sessions {
            manager: Arc::new(LocalSessionManager::default()),
            last_used: Mutex::new(HashMap::new()),
            limits,
        })
    }

    /// The session a request or a response names, used now.
    pub fn touch(&self, headers: &hyper::HeaderMap) {
        let id = headers.get(SESSION_HEADER).and_then(|v| v.to_str().ok());
        if let (Some(id), Ok(mut used)) = (id, self.last_used.lock()) {
            used.insert(id.to_string(), Instant::now());
        }
    }

    /// Closes the sessions idle for their limit ([`SESSION_IDLE`] by default); forgets those
    /// already gone.
    pub async fn expire(&self) {
        let live: Vec<String> = self
            .manager
            .sessions
            .read()
            .await
            .keys()
            .map(|id| id.to_string())
            .collect();
        let idle: Vec<String> = match self.last_used.lock() {
            Ok(mut used) => {
                used.retain(|id, _| live.contains(id));
                let now = Instant::now();
                live.iter()
                    .filter(|id| {
                        *used.entry((*id).clone()).or_insert(now) + self.limits.session_idle <= now
                    })
                    .cloned()
                    .collect()
            }
            Err(_) => Vec::new(),
        };
        for id in idle {
            if let Ok(mut used) = self.last_used.lock() {
                used.remove(&id);
            }
            let _ = self.manager.close_session(&id.into()).await;
        }
    }

    /// Whether a new session would be one too many (after closing the idle ones).
    pub async fn full(&self) -> bool {
        let most = self.limits.max_sessions;
        if self.manager.sessions.read().await.len() < most {
            return false;
        }
        self.expire().await;
        self.manager.sessions.read().await.len() >= most
    }
}

/// Closes idle sessions every few seconds (or, under a shorter idle limit, twice per limit),
/// for as long as the server runs.
pub fn expire_idle_sessions(sessions: Arc<Sessions>) {
    let every =
        (sessions.limits.session_idle / 2).clamp(Duration::from_millis(50), Duration::from_secs(5));
    tokio::spawn(async move {
        loop {
            tokio::time::sleep(every).await;
            sessions.expire().await;
        }
    });
}

/// Whether a request begins a session (an MCP `initialize` is a POST without a session id).
pub fn begins_session<B>(request: &hyper::Request<B>) -> bool {
    request.method() == hyper::Method::POST && !request.headers().contains_key(SESSION_HEADER)
}

/// A request's body, read whole within `within` ([`BODY_TIMEOUT`] by default) and
/// [`MAX_BODY`]; else the answer that says which bound it went past.
pub async fn read_body(
    request: hyper::Request<hyper::body::Incoming>,
    within: Duration,
) -> Result<hyper::Request<Full<Bytes>>, hyper::Response<Body>> {
    let (parts, body) = request.into_parts();
    let collected = tokio::time::timeout(within, Limited::new(body, MAX_BODY).collect());
    match collected.await {
        Err(_) => Err(refusal(
            hyper::StatusCode::REQUEST_TIMEOUT,
            &format!("the request's body did not arrive within {}", said(within)),
        )),
        Ok(Err(e)) if e.is::<http_body_util::LengthLimitError>() => Err(refusal(
            hyper::StatusCode::PAYLOAD_TOO_LARGE,
            &format!("a request's body is at most {MAX_BODY} bytes"),
        )),
        Ok(Err(e)) => Err(refusal(
            hyper::StatusCode::BAD_REQUEST,
            &format!("the request's body could not be read: {e}"),
        )),
        Ok(Ok(body)) => Ok(hyper::Request::from_parts(
            parts,
            Full::new(body.to_bytes()),
        )),
    }
}

/// An HTTP error whose body is a JSON-RPC error saying why.
pub fn refusal(status: hyper::StatusCode, why: &str) -> hyper::Response<Body> {
    let body = serde_json::json!({
        "jsonrpc": "2.0",
        "id": null,
        "error": {"code": -32600, "message": format!("webmcp-ref serve: {why}")},
    })
    .to_string();
    let mut r = hyper::Response::new(Full::new(Bytes::from(body)).boxed());
    *r.status_mut() = status;
    r.headers_mut().insert(
        hyper::header::CONTENT_TYPE,
        hyper::header::HeaderValue::from_static("application/json"),
    );
    r
}

/// The answer to a connection past [`MAX_CONNECTIONS`], written before it is closed.
pub const TOO_MANY_CONNECTIONS: &[u8] = b"HTTP/1.1 503 Service Unavailable\r\nContent-Type: text/plain\r\nConnection: close\r\nContent-Length: 62\r\n\r\nwebmcp-ref serve: too many connections open; try again later\r\n";
