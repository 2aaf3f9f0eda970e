//! The loopback HTTP/1.1 server of the real-browser check: it serves the exported tests, the
//! harness (`/resources/testharness.js`, `/resources/testharnessreport.js`) and
//! `/common/get-host-info.sub.js`, on one port of three loopback origins, and takes the
//! results the report POSTs to `/webmcp-ref/results`.
//!
//! The origins are `http://localhost:PORT` (the test pages: WPT's `HTTPS_ORIGIN`),
//! `http://127.0.0.1:PORT` (`HTTPS_REMOTE_ORIGIN`, as WPT's own get-host-info gives it when
//! the test host is localhost) and `http://127.0.0.2:PORT` (`HTTPS_OTHER_NOTSAMESITE_ORIGIN`).
//! All three are potentially trustworthy (loopback), so secure-context APIs work without TLS,
//! and they are three sites. A thread per connection; one request per connection.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{Ipv4Addr, Ipv6Addr, SocketAddr, TcpListener, TcpStream};
use std::path::{Component, Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::Sender;
use std::sync::Arc;
use std::time::Duration;

use crate::export::{TESTHARNESSREPORT_JS, TESTHARNESS_JS};

/// A report POSTed by a test page.
#[derive(Debug)]
pub struct Posted {
    pub body: String,
}

/// The running server; it stops when dropped.
pub struct Server {
    pub port: u16,
    stop: Arc<AtomicBool>,
    addresses: Vec<SocketAddr>,
}

impl Server {
    /// The test pages' origin.
    pub fn origin(&self) -> String {
        format!("http://localhost:{}", self.port)
    }

    /// Starts serving `root` on a free port of 127.0.0.1, the same port of 127.0.0.2, and of
    /// ::1 when the machine has it (so that `localhost` answers whichever address a browser
    /// tries first).
    pub fn start(root: PathBuf, results: Sender<Posted>) -> std::io::Result<Server> {
        let mut last_error = None;
        for _ in 0..20 {
            let first = TcpListener::bind((Ipv4Addr::new(127, 0, 0, 1), 0))?;
            let port = first.local_addr()?.port();
            let second = match TcpListener::bind((Ipv4Addr::new(127, 0, 0, 2), port)) {
                Ok(l) => l,
                Err(e) => {
                    last_error = Some(e);
                    continue;
                }
            };
            let mut listeners = vec![first, second];
            if let Ok(l) = TcpListener::bind((Ipv6Addr::LOCALHOST, port)) {
                listeners.push(l);
            }
            return Server::serve(listeners, root, port, results);
        }
        Err(last_error.unwrap_or_else(|| std::io::Error::other("no free port")))
    }

    /// Serves `root` on `port` of 127.0.0.1 (and of ::1 when the machine has it), as
    /// `webmcp-ref playground --serve` does: a fixed address, so that links to it keep working.
    pub fn start_at(root: PathBuf, port: u16, results: Sender<Posted>) -> std::io::Result<Server> {
        let mut listeners = vec![TcpListener::bind((Ipv4Addr::new(127, 0, 0, 1), port))?];
        if let Ok(l) = TcpListener::bind((Ipv6Addr::LOCALHOST, port)) {
            listeners.push(l);
        }
        Server::serve(listeners, root, port, results)
    }

    /// An accept loop on a thread of its own for each listener, all stopped together.
    fn serve(
        listeners: Vec<TcpListener>,
        root: PathBuf,
        port: u16,
        results: Sender<Posted>,
    ) -> std::io::Result<Server> {
        let stop = Arc::new(AtomicBool::new(false));
        let mut addresses = Vec::new();
        for listener in listeners {
            addresses.push(listener.local_addr()?);
            let root = root.clone();
            let results = results.clone();
            let stop = stop.clone();
            std::thread::Builder::new()
                .name("webmcp-ref server".into())
                .spawn(move || accept(listener, root, port, results, stop))?;
        }
        Ok(Server {
            port,
            stop,
            addresses,
        })
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        // Wake each accept loop so that it sees the flag.
        for a in &self.addresses {
            let _ = TcpStream::connect_timeout(a, Duration::from_millis(200));
        }
    }
}

fn accept(
    listener: TcpListener,
    root: PathBuf,
    port: u16,
    results: Sender<Posted>,
    stop: Arc<AtomicBool>,
) {
    for stream in listener.incoming() {
        if stop.load(Ordering::SeqCst) {
            return;
        }
        let Ok(stream) = stream else { continue };
        let root = root.clone();
        let results = results.clone();
        let _ = std::thread::Builder::new()
            .name("diff-browser connection".into())
            .spawn(move || {
                let _ = handle(stream, &root, port, &results);
            });
    }
}

struct Request {
    method: String,
    path: String,
    /// Headers the URL's `pipe=header(NAME,VALUE)` asks for (wptserve's pipe, which an
    /// exported iframe with a `Permissions-Policy` uses).
    extra_headers: Vec<(String, String)>,
    body: Vec<u8>,
}

fn read_request(stream: &TcpStream) -> std::io::Result<Option<Request>> {
    let mut reader = BufReader::new(stream);
    let mut line = String::new();
    if reader.read_line(&mut line)? == 0 {
        return Ok(None);
    }
    let mut parts = line.split_whitespace();
    let (Some(method), Some(target)) = (parts.next(), parts.next()) else {
        return Ok(None);
    };
    let mut length = 0usize;
    loop {
        let mut header = String::new();
        if reader.read_line(&mut header)? == 0 {
            break;
        }
        let header = header.trim_end();
        if header.is_empty() {
            break;
        }
        if let Some((name, value)) = header.split_once(':') {
            if name.trim().eq_ignore_ascii_case("content-length") {
                length = value.trim().parse().unwrap_or(0);
            }
        }
    }
    let mut body = vec![0; length.min(64 << 20)];
    reader.read_exact(&mut body)?;
    let path = target.split(['?', '#']).next().unwrap_or("/").to_string();
    let extra_headers = target
        .split_once('?')
        .map(|(_, query)| pipe_headers(query.split('#').next().unwrap_or("")))
        .unwrap_or_default();
    Ok(Some(Request {
        method: method.to_string(),
        path,
        extra_headers,
        body,
    }))
}

/// The headers a file's `FILE.headers` beside it adds to its response, as wptserve reads
/// them: a `NAME: VALUE` line each; a line without a colon, or a name or value with a line
/// break, is skipped.
fn headers_file(file: &Path) -> Vec<(String, String)> {
    let mut path = file.as_os_str().to_owned();
    path.push(".headers");
    let Ok(text) = std::fs::read_to_string(&path) else {
        return Vec::new();
    };
    text.lines()
        .filter_map(|line| {
            let (name, value) = line.split_once(':')?;
            let name = name.trim();
            (!name.is_empty()).then(|| (name.to_string(), value.trim().to_string()))
        })
        .collect()
}

/// The headers a query's `pipe=header(NAME,VALUE)|header(...)` asks for, as wptserve reads
/// them: a backslash escapes the next character (`\,` `\)`), `|` separates pipes. Only
/// `header` is understood; a value with a line break is refused.
fn pipe_headers(query: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for pair in query.split('&') {
        let Some(pipe) = pair.strip_prefix("pipe=") else {
            continue;
        };
        let Some(pipe) = percent_decode(&pipe.replace('+', " ")) else {
            continue;
        };
        let mut rest = pipe.as_str();
        while let Some(body) = rest.strip_prefix("header(") {
            let mut args = vec![String::new()];
            let mut chars = body.char_indices();
            let mut end = None;
            while let Some((i, c)) = chars.next() {
                match c {
                    '\\' => {
                        if let Some((_, next)) = chars.next() {
                            if let Some(a) = args.last_mut() {
                                a.push(next);
                            }
                        }
                    }
                    ',' if args.len() == 1 => args.push(String::new()),
                    ')' => {
                        end = Some(i);
                        break;
                    }
                    other => {
                        if let Some(a) = args.last_mut() {
                            a.push(other);
                        }
                    }
                }
            }
            let Some(end) = end else { break };
            if let [name, value] = &args[..] {
                let name = name.trim();
                let ok = |t: &str| !t.contains(['\r', '\n']);
                if !name.is_empty() && ok(name) && ok(value) {
                    out.push((name.to_string(), value.trim().to_string()));
                }
            }
            rest = body[end + 1..].trim_start_matches('|');
        }
    }
    out
}

fn respond(
    stream: &TcpStream,
    status: &str,
    content_type: &str,
    body: &[u8],
    head_only: bool,
) -> std::io::Result<()> {
    respond_with(stream, status, content_type, &[], body, head_only)
}

fn respond_with(
    mut stream: &TcpStream,
    status: &str,
    content_type: &str,
    extra_headers: &[(String, String)],
    body: &[u8],
    head_only: bool,
) -> std::io::Result<()> {
    let extra: String = extra_headers
        .iter()
        .map(|(name, value)| format!("{name}: {value}\r\n"))
        .collect();
    let header = format!(
        "HTTP/1.1 {status}\r\nContent-Type: {content_type}\r\nContent-Length: {}\r\nCache-Control: no-store\r\n{extra}Connection: close\r\n\r\n",
        body.len()
    );
    stream.write_all(header.as_bytes())?;
    if !head_only {
        stream.write_all(body)?;
    }
    stream.flush()
}

fn handle(
    stream: TcpStream,
    root: &Path,
    port: u16,
    results: &Sender<Posted>,
) -> std::io::Result<()> {
    stream.set_read_timeout(Some(Duration::from_secs(10)))?;
    let Some(request) = read_request(&stream)? else {
        return Ok(());
    };
    let head_only = request.method == "HEAD";
    match (request.method.as_str(), request.path.as_str()) {
        ("POST", "/webmcp-ref/results") => {
            let body = String::from_utf8_lossy(&request.body).into_owned();
            let _ = results.send(Posted { body });
            respond(&stream, "204 No Content", "text/plain", b"", false)
        }
        ("GET" | "HEAD", "/resources/testharness.js") => respond(
            &stream,
            "200 OK",
            "text/javascript; charset=utf-8",
            TESTHARNESS_JS.as_bytes(),
            head_only,
        ),
        ("GET" | "HEAD", "/resources/testharnessreport.js") => respond(
            &stream,
            "200 OK",
            "text/javascript; charset=utf-8",
            TESTHARNESSREPORT_JS.as_bytes(),
            head_only,
        ),
        ("GET" | "HEAD", "/common/get-host-info.sub.js") => respond(
            &stream,
            "200 OK",
            "text/javascript; charset=utf-8",
            host_info(port).as_bytes(),
            head_only,
        ),
        ("GET" | "HEAD", path) => match file_below(root, path) {
            Some(file) => match std::fs::read(&file) {
                Ok(bytes) => {
                    let mut headers = headers_file(&file);
                    headers.extend(request.extra_headers.iter().cloned());
                    respond_with(
                        &stream,
                        "200 OK",
                        content_type(&file),
                        &headers,
                        &bytes,
                        head_only,
                    )
                }
                Err(_) => respond(
                    &stream,
                    "404 Not Found",
                    "text/plain",
                    b"not found",
                    head_only,
                ),
            },
            None => respond(
                &stream,
                "404 Not Found",
                "text/plain",
                b"not found",
                head_only,
            ),
        },
        _ => respond(
            &stream,
            "405 Method Not Allowed",
            "text/plain",
            b"method not allowed",
            false,
        ),
    }
}

/// The file a URL path names below `root`, if it names one (no `..`, no absolute escapes).
fn file_below(root: &Path, path: &str) -> Option<PathBuf> {
    let decoded = percent_decode(path)?;
    let mut file = root.to_path_buf();
    for c in Path::new(decoded.trim_start_matches('/')).components() {
        match c {
            Component::Normal(part) => file.push(part),
            Component::CurDir => {}
            _ => return None,
        }
    }
    // A folder's page is its index.html.
    if file.is_dir() {
        file.push("index.html");
    }
    file.is_file().then_some(file)
}

fn percent_decode(s: &str) -> Option<String> {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = s.get(i + 1..i + 3)?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}

fn content_type(path: &Path) -> &'static str {
    match path.extension().and_then(|e| e.to_str()) {
        Some("html") => "text/html; charset=utf-8",
        Some("js") => "text/javascript; charset=utf-8",
        Some("json") => "application/json",
        Some("css") => "text/css",
        // What WebAssembly.instantiateStreaming() requires of a module.
        Some("wasm") => "application/wasm",
        _ => "application/octet-stream",
    }
}

/// `/common/get-host-info.sub.js` for this server: the keys WPT's version has that tests use,
/// with the loopback origins in place of WPT's hosts.
/// The host name of the plain-HTTP remote origin: not loopback by name, so not potentially
/// trustworthy; the browser is told it is 127.0.0.1 (`chromium::FLAGS`).
pub const INSECURE_HOST: &str = "webmcp-ref-insecure.test";

pub fn host_info(port: u16) -> String {
    let a = format!("http://localhost:{port}");
    let b = format!("http://127.0.0.1:{port}");
    let c = format!("http://127.0.0.2:{port}");
    let insecure = format!("http://{INSECURE_HOST}:{port}");
    format!(
        r#"// get_host_info() of `webmcp-ref diff-browser`'s loopback server, standing in for WPT's
// /common/get-host-info.sub.js: the test pages are on {a}; the remote origin is {b} (what
// WPT's own file gives when the host is localhost); the other, not same-site origin is {c};
// the plain-HTTP remote origin, {insecure}, is a name the browser maps to 127.0.0.1 and does
// not hold potentially trustworthy (as WPT's http://www1.web-platform.test).
function get_host_info() {{
  return {{
    HTTP_PORT: "{port}",
    HTTPS_PORT: "{port}",
    ORIGINAL_HOST: "localhost",
    REMOTE_HOST: "127.0.0.1",
    ORIGIN: "{a}",
    HTTP_ORIGIN: "{a}",
    HTTPS_ORIGIN: "{a}",
    REMOTE_ORIGIN: "{b}",
    HTTP_REMOTE_ORIGIN: "{insecure}",
    HTTPS_REMOTE_ORIGIN: "{b}",
    NOTSAMESITE_ORIGIN: "{c}",
    HTTP_NOTSAMESITE_ORIGIN: "{c}",
    HTTPS_NOTSAMESITE_ORIGIN: "{c}",
    OTHER_ORIGIN: "{c}",
    HTTPS_OTHER_ORIGIN: "{c}",
    HTTPS_OTHER_NOTSAMESITE_ORIGIN: "{c}",
  }};
}}
"#
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pipe_headers_follow_wptserve() {
        assert_eq!(
            pipe_headers("a=1&pipe=header(Permissions-Policy,tools%3D\\(self%20%22http://x%22\\))"),
            vec![(
                "Permissions-Policy".to_string(),
                "tools=(self \"http://x\")".to_string()
            )]
        );
        assert!(pipe_headers("pipe=header(X,a%0d%0aB: c)").is_empty());
        assert!(pipe_headers("pipe=header(X").is_empty());
    }

    #[test]
    fn paths_stay_below_the_root() {
        let root = std::env::temp_dir();
        assert!(file_below(&root, "/../etc/passwd").is_none());
        assert!(file_below(&root, "/%2e%2e/etc/passwd").is_none());
        assert_eq!(percent_decode("/a%20b").as_deref(), Some("/a b"));
    }
}
