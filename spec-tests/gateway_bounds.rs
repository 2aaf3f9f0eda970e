//! What a client can hold of `webmcp-ref serve`, bounded, on the real binary: over HTTP, the
//! sessions (capped, and closed when idle), the connections (capped), a header or a body sent
//! too slowly (the connection closed, or 408); over stdio, answers nobody reads (the server
//! stops reading instead of keeping them). Each bound is set small with its flag, so that the
//! test sees it reached in a second rather than in minutes.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::json;

const BIN: &str = env!("CARGO_BIN_EXE_webmcp-ref");
const ROOT: &str = env!("CARGO_MANIFEST_DIR");

/// `webmcp-ref serve --http 0 FLAGS` on served/shop.scn, killed when dropped.
struct Server {
    child: Child,
    address: String,
}

impl Server {
    fn start(flags: &[&str]) -> Server {
        let (child, address) = crate::common::http_server(flags);
        Server { child, address }
    }

    /// One request on a connection of its own, and the whole answer.
    fn post(&self, session: Option<&str>, body: &str) -> String {
        let mut s = TcpStream::connect(&self.address).expect("connects");
        s.set_read_timeout(Some(Duration::from_secs(10))).ok();
        let session = session.map_or(String::new(), |id| {
            format!("Mcp-Session-Id: {id}\r\nMcp-Protocol-Version: 2025-11-25\r\n")
        });
        write!(
            s,
            "POST /mcp HTTP/1.1\r\nHost: {}\r\n{session}Content-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
            self.address,
            body.len()
        )
        .expect("sent");
        let mut answer = String::new();
        let _ = s.read_to_string(&mut answer);
        answer
    }

    fn initialize(&self) -> String {
        self.post(
            None,
            &json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "raw", "version": "1"}}}).to_string(),
        )
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The value of an answer's Mcp-Session-Id header.
fn session_id(answer: &str) -> String {
    answer
        .lines()
        .find_map(|l| {
            let (name, value) = l.split_once(':')?;
            name.eq_ignore_ascii_case("mcp-session-id")
                .then(|| value.trim().to_string())
        })
        .unwrap_or_else(|| panic!("no session id in {answer}"))
}

fn status(answer: &str) -> &str {
    answer.get(9..12).unwrap_or("")
}

#[test]
fn sessions_past_the_cap_get_503_and_idle_ones_are_closed() {
    let server = Server::start(&["--max-sessions", "2", "--session-idle", "1s"]);
    let first = server.initialize();
    assert_eq!(status(&first), "200", "{first}");
    let second = server.initialize();
    assert_eq!(status(&second), "200", "{second}");
    let first_id = session_id(&first);

    // A third, while both are in use: refused, and the answer says which bound and its flag.
    let third = server.initialize();
    assert_eq!(status(&third), "503", "{third}");
    assert!(third.contains("2 MCP sessions are open"), "{third}");
    assert!(third.contains("--max-sessions"), "{third}");

    // A live session answers (not 404).
    let list = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}).to_string();
    let live = server.post(Some(&first_id), &list);
    assert_ne!(status(&live), "404", "{live}");

    // Idle past the limit: the session is closed, its id is unknown, and a new one fits.
    std::thread::sleep(Duration::from_millis(1800));
    let gone = server.post(Some(&first_id), &list);
    assert_eq!(status(&gone), "404", "{gone}");
    let again = server.initialize();
    assert_eq!(status(&again), "200", "{again}");
}

#[test]
fn a_header_sent_too_slowly_has_its_connection_closed() {
    let server = Server::start(&["--header-timeout", "500ms"]);
    let mut s = TcpStream::connect(&server.address).expect("connects");
    s.set_read_timeout(Some(Duration::from_secs(10))).ok();
    write!(s, "POST /mcp HTTP/1.1\r\nHost: {}\r\n", server.address).expect("sent");
    let started = Instant::now();
    let mut answer = String::new();
    // The read ends when the server closes the connection (after a 408, or with nothing).
    let _ = s.read_to_string(&mut answer);
    let took = started.elapsed();
    assert!(took < Duration::from_secs(5), "closed after {took:?}");
    assert!(answer.is_empty() || status(&answer) == "408", "{answer}");
    // The server itself still answers.
    assert_eq!(status(&server.initialize()), "200");
}

#[test]
fn a_body_sent_too_slowly_gets_408() {
    let server = Server::start(&["--body-timeout", "500ms"]);
    let mut s = TcpStream::connect(&server.address).expect("connects");
    s.set_read_timeout(Some(Duration::from_secs(10))).ok();
    write!(
        s,
        "POST /mcp HTTP/1.1\r\nHost: {}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: 100\r\n\r\n{{\"jsonrpc\"",
        server.address
    )
    .expect("sent");
    let mut answer = String::new();
    let _ = s.read_to_string(&mut answer);
    assert_eq!(status(&answer), "408", "{answer}");
    assert!(answer.contains("within 500 ms"), "{answer}");
}

#[test]
fn connections_past_the_cap_get_503_and_a_freed_one_is_taken_again() {
    let server = Server::start(&["--max-connections", "2", "--header-timeout", "60s"]);
    // Two connections that send nothing hold both places.
    let held: Vec<TcpStream> = (0..2)
        .map(|_| TcpStream::connect(&server.address).expect("connects"))
        .collect();
    std::thread::sleep(Duration::from_millis(200));
    let mut third = TcpStream::connect(&server.address).expect("the listener accepts");
    third.set_read_timeout(Some(Duration::from_secs(10))).ok();
    let mut answer = String::new();
    let _ = third.read_to_string(&mut answer);
    assert_eq!(status(&answer), "503", "{answer}");
    assert!(answer.contains("too many connections"), "{answer}");
    // One closed: its place is free again.
    drop(held);
    let deadline = Instant::now() + Duration::from_secs(5);
    loop {
        let answer = server.initialize();
        if status(&answer) == "200" {
            break;
        }
        assert!(Instant::now() < deadline, "never free again: {answer}");
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[test]
fn bad_bounds_are_refused_with_what_was_expected() {
    for (flag, value) in [
        ("--session-idle", "0"),
        ("--session-idle", "2d"),
        ("--header-timeout", "soon"),
        ("--max-sessions", "0"),
        ("--max-connections", "-1"),
    ] {
        let out = Command::new(BIN)
            .args(["serve", "served/shop.scn", "--http", "0"])
            .arg(format!("{flag}={value}"))
            .current_dir(ROOT)
            .stdin(Stdio::null())
            .output()
            .expect("runs");
        assert_eq!(out.status.code(), Some(2), "{flag} {value}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(flag) && err.contains("expected"), "{err}");
    }
}

/// The resident memory of a process, in KiB (Linux).
fn rss_kib(pid: u32) -> u64 {
    std::fs::read_to_string(format!("/proc/{pid}/status"))
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmRSS:"))
                .and_then(|l| l.split_whitespace().nth(1)?.parse().ok())
        })
        .unwrap_or(0)
}

#[test]
fn a_stdio_client_that_reads_no_answers_stops_the_reading_not_the_memory() {
    let mut child = Command::new(BIN)
        .args(["serve", "served/shop.scn", "--subtest", "late"])
        .current_dir(ROOT)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("starts");
    // stdout is held open and never read.
    let _unread = child.stdout.take();
    let mut stdin = child.stdin.take().expect("stdin");
    let written = Arc::new(AtomicU64::new(0));
    let counter = written.clone();
    std::thread::spawn(move || {
        let init = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "deaf", "version": "1"}}}).to_string();
        let _ = writeln!(stdin, "{init}");
        let _ = writeln!(
            stdin,
            "{}",
            json!({"jsonrpc": "2.0", "method": "notifications/initialized"})
        );
        for id in 1u64.. {
            let line = format!("{}\n", json!({"jsonrpc": "2.0", "id": id, "method": "tools/list"}));
            if stdin.write_all(line.as_bytes()).is_err() {
                break;
            }
            counter.fetch_add(line.len() as u64, Ordering::Relaxed);
        }
    });
    // The server reads until its queues and the pipes are full, then no more.
    std::thread::sleep(Duration::from_secs(3));
    let after_3s = written.load(Ordering::Relaxed);
    std::thread::sleep(Duration::from_secs(2));
    let after_5s = written.load(Ordering::Relaxed);
    let rss = rss_kib(child.id());
    let _ = child.kill();
    let _ = child.wait();
    assert_eq!(
        after_3s, after_5s,
        "the server went on reading requests whose answers nobody reads"
    );
    // Queues of a few hundred answers, not every answer: well under 200 MiB.
    assert!(rss < 200 * 1024, "resident memory {rss} KiB");
}
