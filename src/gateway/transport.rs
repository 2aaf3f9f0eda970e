//! The line transport under the MCP server (stdio, or any pair of byte streams): JSON-RPC
//! messages one per line, checked before rmcp sees them.
//!
//! rmcp drops what it cannot read without a word, so the gateway reads the lines itself and
//! answers every malformed message that JSON-RPC lets it answer: `-32700` (parse error: not
//! UTF-8, not JSON, a line over [`MAX_LINE`]), `-32600` (invalid request: not a JSON-RPC 2.0
//! request, an id a request in progress already uses, too many requests at once), `-32602`
//! (invalid params: params that are not an object, `tools/call` with a `name` that is not a
//! string or `arguments` that are not an object, a number out of range or a lone surrogate in
//! an otherwise well-formed request, or U+10F800 to U+10FFFF, which stand for lone surrogates
//! inside the engine). A malformed notification or response cannot be answered:
//! it gets a line on stderr. When the input ends, [`Lines::closed`] says so at once, so that
//! the server can stop without waiting for requests still under way.
//!
//! A client that sends requests and does not read the answers is not answered into memory:
//! while more than [`MAX_UNWRITTEN`] bytes of answers wait to be written, no request is taken
//! (the reader stops, and the client's writes block on the full pipe), and the answers already
//! made wait in a bounded queue.

use std::collections::HashSet;
use std::sync::{Arc, Mutex};

use rmcp::service::{RxJsonRpcMessage, TxJsonRpcMessage};
use rmcp::transport::Transport;
use rmcp::RoleServer;
use serde_json::{json, Value};
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::sync::{mpsc, watch};

/// The longest line read: 16 MiB.
pub const MAX_LINE: usize = 16 << 20;
/// The most requests under way at once.
pub const MAX_IN_FLIGHT: usize = 1024;
/// The most bytes of answers waiting to be written before no more requests are taken.
pub const MAX_UNWRITTEN: usize = 4 << 20;

/// The bytes of answers made and not yet written, and a wake-up when some are.
#[derive(Default)]
struct Unwritten {
    bytes: std::sync::atomic::AtomicUsize,
    written: tokio::sync::Notify,
}

impl Unwritten {
    fn add(&self, n: usize) {
        self.bytes
            .fetch_add(n, std::sync::atomic::Ordering::Relaxed);
    }

    fn done(&self, n: usize) {
        self.bytes
            .fetch_sub(n, std::sync::atomic::Ordering::Relaxed);
        self.written.notify_waiters();
    }

    /// Waits until few enough answers wait to be written.
    async fn room(&self) {
        loop {
            let written = self.written.notified();
            if self.bytes.load(std::sync::atomic::Ordering::Relaxed) <= MAX_UNWRITTEN {
                return;
            }
            written.await;
        }
    }
}

/// The transport rmcp serves on.
pub struct Lines {
    incoming: mpsc::Receiver<RxJsonRpcMessage<RoleServer>>,
    out: mpsc::Sender<String>,
    in_flight: Arc<Mutex<HashSet<String>>>,
    unwritten: Arc<Unwritten>,
}

/// A receiver that turns true when the input has ended.
pub type Closed = watch::Receiver<bool>;

impl Lines {
    /// Reads from `input` and writes to `output`, each on a task of its own.
    pub fn new<R, W>(input: R, output: W) -> (Lines, Closed)
    where
        R: AsyncRead + Send + Unpin + 'static,
        W: AsyncWrite + Send + Unpin + 'static,
    {
        let (to_server, incoming) = mpsc::channel(64);
        let (out, lines) = mpsc::channel::<String>(256);
        let (closed_tx, closed) = watch::channel(false);
        let in_flight = Arc::new(Mutex::new(HashSet::new()));
        let unwritten = Arc::new(Unwritten::default());
        tokio::spawn(write_lines(output, lines, unwritten.clone()));
        tokio::spawn(read_lines(
            input,
            to_server,
            out.clone(),
            in_flight.clone(),
            closed_tx,
            unwritten.clone(),
        ));
        (
            Lines {
                incoming,
                out,
                in_flight,
                unwritten,
            },
            closed,
        )
    }
}

impl Transport<RoleServer> for Lines {
    type Error = std::io::Error;

    fn send(
        &mut self,
        item: TxJsonRpcMessage<RoleServer>,
    ) -> impl std::future::Future<Output = Result<(), Self::Error>> + Send + 'static {
        let out = self.out.clone();
        let unwritten = self.unwritten.clone();
        let line = serde_json::to_value(&item).map(|v| {
            if v.get("method").is_none() {
                if let (Some(id), Ok(mut f)) = (v.get("id"), self.in_flight.lock()) {
                    f.remove(&id.to_string());
                }
            }
            v.to_string()
        });
        async move {
            let line = line.map_err(std::io::Error::other)?;
            unwritten.add(line.len());
            out.send(line)
                .await
                .map_err(|_| std::io::Error::new(std::io::ErrorKind::BrokenPipe, "output closed"))
        }
    }

    fn receive(
        &mut self,
    ) -> impl std::future::Future<Output = Option<RxJsonRpcMessage<RoleServer>>> + Send {
        let unwritten = self.unwritten.clone();
        let incoming = &mut self.incoming;
        async move {
            // Back-pressure: no request is taken while the client leaves its answers unread.
            unwritten.room().await;
            incoming.recv().await
        }
    }

    async fn close(&mut self) -> Result<(), Self::Error> {
        Ok(())
    }
}

async fn write_lines<W: AsyncWrite + Unpin>(
    mut output: W,
    mut lines: mpsc::Receiver<String>,
    unwritten: Arc<Unwritten>,
) {
    while let Some(line) = lines.recv().await {
        let written = async {
            output.write_all(line.as_bytes()).await?;
            output.write_all(b"\n").await?;
            output.flush().await
        };
        let ok = written.await.is_ok();
        unwritten.done(line.len());
        if !ok {
            break;
        }
    }
}

/// One line, read whole or known to be too long.
enum Line {
    Text(Vec<u8>),
    TooLong,
}

/// Reads up to a newline, keeping at most [`MAX_LINE`] bytes; `None` at the end.
async fn next_line<R: AsyncRead + Unpin>(input: &mut BufReader<R>) -> Option<Line> {
    let mut line = Vec::new();
    let mut too_long = false;
    loop {
        let buf = match input.fill_buf().await {
            Ok(b) => b,
            Err(_) => return None,
        };
        if buf.is_empty() {
            return match (too_long, line.is_empty()) {
                (true, _) => Some(Line::TooLong),
                (false, true) => None,
                (false, false) => Some(Line::Text(line)),
            };
        }
        let (chunk, done) = match buf.iter().position(|&b| b == b'\n') {
            Some(i) => (&buf[..i], Some(i + 1)),
            None => (buf, None),
        };
        if !too_long {
            if line.len() + chunk.len() > MAX_LINE {
                too_long = true;
                line = Vec::new();
            } else {
                line.extend_from_slice(chunk);
            }
        }
        let used = done.unwrap_or(buf.len());
        input.consume(used);
        if done.is_some() {
            return Some(if too_long {
                Line::TooLong
            } else {
                Line::Text(line)
            });
        }
    }
}

async fn read_lines<R: AsyncRead + Unpin>(
    input: R,
    to_server: mpsc::Sender<RxJsonRpcMessage<RoleServer>>,
    out: mpsc::Sender<String>,
    in_flight: Arc<Mutex<HashSet<String>>>,
    closed: watch::Sender<bool>,
    unwritten: Arc<Unwritten>,
) {
    let mut input = BufReader::with_capacity(1 << 16, input);
    let mut initialized = false;
    while let Some(line) = next_line(&mut input).await {
        match check(line, &in_flight) {
            Checked::Pass(message) => {
                if to_server.send(*message).await.is_err() {
                    break;
                }
            }
            // The connection is initialized once: a second `initialize` would begin another
            // session on the same one.
            Checked::Initialize(id, _) if initialized => {
                if let Ok(mut f) = in_flight.lock() {
                    f.remove(&id.to_string());
                }
                let answer = json!({
                    "jsonrpc": "2.0",
                    "id": id,
                    "error": {"code": INVALID_REQUEST, "message": "Invalid request: the connection is initialized already (`initialize` comes once, first)"},
                })
                .to_string();
                unwritten.add(answer.len());
                if out.send(answer).await.is_err() {
                    break;
                }
            }
            Checked::Initialize(_, message) => {
                initialized = true;
                if to_server.send(*message).await.is_err() {
                    break;
                }
            }
            Checked::Answer(answer) => {
                let answer = answer.to_string();
                unwritten.add(answer.len());
                if out.send(answer).await.is_err() {
                    break;
                }
                // A client that sends malformed lines and reads no answer is not read on.
                unwritten.room().await;
            }
            Checked::Log(why) => eprintln!(
                "webmcp-ref serve: {}",
                crate::text::escape::terminal(&why, false)
            ),
            Checked::Skip => {}
        }
    }
    let _ = closed.send(true);
}

/// What becomes of a line.
enum Checked {
    Pass(Box<RxJsonRpcMessage<RoleServer>>),
    /// An `initialize` request (with its id), which a connection makes once.
    Initialize(Value, Box<RxJsonRpcMessage<RoleServer>>),
    Answer(Value),
    Log(String),
    Skip,
}

fn error(id: Value, code: i64, message: impl Into<String>) -> Checked {
    Checked::Answer(json!({
        "jsonrpc": "2.0",
        "id": id,
        "error": {"code": code, "message": message.into()},
    }))
}

const PARSE_ERROR: i64 = -32700;
const INVALID_REQUEST: i64 = -32600;
const INVALID_PARAMS: i64 = -32602;

fn check(line: Line, in_flight: &Mutex<HashSet<String>>) -> Checked {
    let bytes = match line {
        Line::TooLong => {
            return error(
                Value::Null,
                PARSE_ERROR,
                format!("Parse error: a line over {MAX_LINE} bytes"),
            )
        }
        Line::Text(b) => b,
    };
    let Ok(text) = std::str::from_utf8(&bytes) else {
        return error(
            Value::Null,
            PARSE_ERROR,
            "Parse error: the line is not UTF-8",
        );
    };
    let text = text.trim();
    if text.is_empty() {
        return Checked::Skip;
    }
    let value: Value = match serde_json::from_str(text) {
        Ok(v) => v,
        Err(e) => return unparsable(text, &e),
    };
    // The characters that stand for lone surrogates inside the engine (text::js_string) are
    // refused as a lone surrogate's escape is.
    if let Some((_, column, c)) = crate::text::js_string::first_reserved(text) {
        let why = format!(
            "Invalid params: at column {column}: {}",
            crate::text::js_string::reserved_message(c)
        );
        return answer_or_log(find_id(text), INVALID_PARAMS, why);
    }
    let Value::Object(message) = &value else {
        let what = if value.is_array() {
            "batches are not supported: send one message per line"
        } else {
            "a message is a JSON object"
        };
        return error(
            Value::Null,
            INVALID_REQUEST,
            format!("Invalid request: {what}"),
        );
    };
    let id = message.get("id");
    let id_ok = matches!(id, Some(Value::String(_)))
        || matches!(id, Some(Value::Number(n)) if n.is_i64() || n.is_u64());
    let method = message.get("method");
    if message.get("jsonrpc") != Some(&Value::from("2.0")) {
        return answer_or_log(
            id_ok.then(|| id.cloned()).flatten(),
            INVALID_REQUEST,
            "Invalid request: `jsonrpc` must be \"2.0\"",
        );
    }
    if id.is_some() && !id_ok {
        return error(
            Value::Null,
            INVALID_REQUEST,
            "Invalid request: `id` must be a string or an integer",
        );
    }
    let id = id_ok.then(|| id.cloned()).flatten();
    match method {
        None => {
            // A response to a request of the server's: rmcp reads it, or it cannot be
            // answered.
            return match serde_json::from_value(value.clone()) {
                Ok(m) => Checked::Pass(Box::new(m)),
                Err(e) => Checked::Log(format!("dropped a malformed response: {e}")),
            };
        }
        Some(Value::String(_)) => {}
        Some(_) => {
            return answer_or_log(
                id,
                INVALID_REQUEST,
                "Invalid request: `method` must be a string",
            )
        }
    }
    let method = method.and_then(Value::as_str).unwrap_or_default();
    let params = message.get("params");
    if params.is_some_and(|p| !p.is_object() && !p.is_null()) {
        return answer_or_log(
            id,
            INVALID_PARAMS,
            "Invalid params: `params` must be an object",
        );
    }
    if method == "tools/call" {
        let name = params.and_then(|p| p.get("name"));
        if !matches!(name, Some(Value::String(_))) {
            return answer_or_log(
                id,
                INVALID_PARAMS,
                "Invalid params: tools/call needs `name`, a string",
            );
        }
        let arguments = params.and_then(|p| p.get("arguments"));
        if arguments.is_some_and(|a| !a.is_object() && !a.is_null()) {
            return answer_or_log(
                id,
                INVALID_PARAMS,
                "Invalid params: tools/call's `arguments` must be an object",
            );
        }
    }
    if method == "notifications/cancelled" {
        if let (Some(r), Ok(mut f)) = (params.and_then(|p| p.get("requestId")), in_flight.lock()) {
            f.remove(&r.to_string());
        }
    }
    let parsed: Result<RxJsonRpcMessage<RoleServer>, _> = serde_json::from_value(value.clone());
    let message = match parsed {
        Ok(m) => m,
        Err(e) => return answer_or_log(id, INVALID_PARAMS, format!("Invalid params: {e}")),
    };
    if let Some(id) = &id {
        let Ok(mut f) = in_flight.lock() else {
            return Checked::Pass(Box::new(message));
        };
        let key = id.to_string();
        if f.contains(&key) {
            return error(
                id.clone(),
                INVALID_REQUEST,
                format!("Invalid request: id {key} is already used by a request in progress"),
            );
        }
        if f.len() >= MAX_IN_FLIGHT {
            return error(
                id.clone(),
                INVALID_REQUEST,
                format!("Invalid request: {MAX_IN_FLIGHT} requests are in progress already"),
            );
        }
        f.insert(key);
        if method == "initialize" {
            return Checked::Initialize(id.clone(), Box::new(message));
        }
    }
    Checked::Pass(Box::new(message))
}

/// A request gets the error; a notification (no id) cannot, and is logged.
fn answer_or_log(id: Option<Value>, code: i64, message: impl Into<String>) -> Checked {
    let message = message.into();
    match id {
        Some(id) => error(id, code, message),
        None => Checked::Log(format!("dropped a notification: {message}")),
    }
}

/// A line serde_json cannot read. A number out of range or a lone surrogate leaves the JSON
/// well formed: then the request's own id, when one can be found, gets -32602; anything else
/// is a parse error, answered with a null id.
fn unparsable(text: &str, e: &serde_json::Error) -> Checked {
    let why = e.to_string();
    let well_formed = why.contains("number out of range")
        || why.contains("surrogate")
        || (why.contains("hex escape") && has_surrogate_escape(text));
    if e.classify() == serde_json::error::Category::Syntax && well_formed {
        if let Some(id) = find_id(text) {
            return error(id, INVALID_PARAMS, format!("Invalid params: {why}"));
        }
        if !text.contains("\"id\"") {
            return Checked::Log(format!("dropped a notification: {why}"));
        }
    }
    error(Value::Null, PARSE_ERROR, format!("Parse error: {why}"))
}

/// Whether the text has a `\uD800`-`\uDFFF` escape (serde_json reads a lone one as a bad
/// escape).
fn has_surrogate_escape(text: &str) -> bool {
    text.as_bytes().windows(4).any(|w| {
        w[0] == b'\\'
            && (w[1] == b'u')
            && (w[2] == b'd' || w[2] == b'D')
            && matches!(w[3], b'8'..=b'9' | b'a'..=b'f' | b'A'..=b'F')
    })
}

/// The top-level `"id"` of an object, read with the unreadable values skipped.
fn find_id(text: &str) -> Option<Value> {
    let bytes = text.as_bytes();
    let mut depth = 0usize;
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'{' | b'[' => depth += 1,
            b'}' | b']' => depth = depth.saturating_sub(1),
            b'"' => {
                let end = string_end(bytes, i)?;
                if depth == 1 && &text[i..=end] == "\"id\"" {
                    let rest = text[end + 1..].trim_start();
                    let rest = rest.strip_prefix(':')?.trim_start();
                    let value_end = rest.find([',', '}']).unwrap_or(rest.len());
                    return serde_json::from_str::<Value>(rest[..value_end].trim())
                        .ok()
                        .filter(|v| v.is_string() || v.is_i64() || v.is_u64());
                }
                i = end;
            }
            _ => {}
        }
        i += 1;
    }
    None
}

/// The index of the quote closing the string that opens at `start`.
fn string_end(bytes: &[u8], start: usize) -> Option<usize> {
    let mut i = start + 1;
    while i < bytes.len() {
        match bytes[i] {
            b'\\' => i += 2,
            b'"' => return Some(i),
            _ => i += 1,
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn answer(line: &str) -> Value {
        match check(Line::Text(line.as_bytes().to_vec()), &Mutex::default()) {
            Checked::Answer(v) => v,
            Checked::Pass(_) | Checked::Initialize(..) => panic!("passed: {line}"),
            Checked::Log(l) => panic!("logged {l}: {line}"),
            Checked::Skip => panic!("skipped: {line}"),
        }
    }

    fn code(v: &Value) -> (i64, Value) {
        (v["error"]["code"].as_i64().unwrap_or(0), v["id"].clone())
    }

    #[test]
    fn malformed_messages_get_their_error() {
        assert_eq!(code(&answer("{")), (PARSE_ERROR, Value::Null));
        assert_eq!(code(&answer("[1]")), (INVALID_REQUEST, Value::Null));
        assert_eq!(
            code(&answer(
                r#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"webmcp_wait_for","arguments":{"timeoutMs":1e400}}}"#
            )),
            (INVALID_PARAMS, json!(3))
        );
        assert_eq!(
            code(&answer(
                r#"{"jsonrpc":"2.0","id":"a","method":"tools/call","params":{"name":"\ud800"}}"#
            )),
            (INVALID_PARAMS, json!("a"))
        );
        assert_eq!(
            code(&answer(
                r#"{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":5}}"#
            )),
            (INVALID_PARAMS, json!(4))
        );
        assert_eq!(
            code(&answer(
                r#"{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"x","arguments":"x"}}"#
            )),
            (INVALID_PARAMS, json!(5))
        );
        assert_eq!(
            code(&answer(r#"{"jsonrpc":"1.0","id":6,"method":"ping"}"#)),
            (INVALID_REQUEST, json!(6))
        );
        assert_eq!(
            code(&answer(r#"{"jsonrpc":"2.0","id":1.5,"method":"ping"}"#)),
            (INVALID_REQUEST, Value::Null)
        );
        let too_long = check(Line::TooLong, &Mutex::default());
        assert!(matches!(too_long, Checked::Answer(v) if code(&v).0 == PARSE_ERROR));
        let bad_utf8 = check(Line::Text(vec![b'{', 0xff, b'}']), &Mutex::default());
        assert!(matches!(bad_utf8, Checked::Answer(v) if code(&v).0 == PARSE_ERROR));
    }

    #[test]
    fn a_second_request_with_the_same_id_is_refused_while_the_first_is_in_progress() {
        let in_flight = Mutex::default();
        let ping = r#"{"jsonrpc":"2.0","id":7,"method":"ping"}"#;
        assert!(matches!(
            check(Line::Text(ping.into()), &in_flight),
            Checked::Pass(_)
        ));
        assert!(matches!(
            check(Line::Text(ping.into()), &in_flight),
            Checked::Answer(v) if code(&v) == (INVALID_REQUEST, json!(7))
        ));
    }

    #[test]
    fn malformed_notifications_are_logged() {
        let n = r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":"x"}"#;
        assert!(matches!(
            check(Line::Text(n.into()), &Mutex::default()),
            Checked::Log(_)
        ));
    }
}
