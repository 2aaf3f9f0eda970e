//! The agent gateway on the wire: the real binary (`webmcp-ref serve`), driven over its stdin
//! and stdout with raw JSON-RPC lines (and over HTTP), as a hostile page and a hostile client
//! would have it.
//!
//! - deadlines that hold while the page never idles (a `toolchange` listener that registers
//!   and aborts a tool forever), on both clocks;
//! - one rule for page text: a hostile page (served/hostile.scn) puts INJECTED in every text
//!   it controls, and no answer, tool field or instruction shows it outside the marked region;
//! - observations that queue, time out and are cancelled, and the queue going on;
//! - one visibility rule for tools/list, observe, call and the wait conditions;
//! - the exit when stdin closes, and an error answer for every malformed message;
//! - a round trip with 1000 waits pending; the smaller items (conditions offered, read-only
//!   hints, page tools by name across pages, call timeouts); the HTTP transport's edges.

use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::{mpsc, Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::{json, Value};
#[allow(unused_imports)]
use webmcp_ref::prelude::*;
use webmcp_ref::gateway::{UNTRUSTED_KEY, UNTRUSTED_NOTICE};

const BIN: &str = env!("CARGO_BIN_EXE_webmcp-ref");
const ROOT: &str = env!("CARGO_MANIFEST_DIR");

/// A scenario written to a file of its own, for the binary to serve.
fn scenario_file(name: &str, source: &str) -> String {
    let dir = std::env::temp_dir().join(format!("webmcp-ref-wire-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("a temporary directory");
    let path = dir.join(format!("{name}.scn"));
    std::fs::write(&path, source).expect("the scenario is written");
    path.to_string_lossy().into_owned()
}

/// `webmcp-ref serve` on pipes: lines in, lines out, stderr kept.
struct Wire {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: mpsc::Receiver<Value>,
    seen: Vec<Value>,
    stderr: Arc<Mutex<String>>,
    next_id: u64,
    /// The initialize result.
    init: Value,
}

impl Wire {
    fn start(file: &str, args: &[&str]) -> Wire {
        let mut child = Command::new(BIN)
            .arg("serve")
            .arg(file)
            .args(args)
            .current_dir(ROOT)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("the binary starts");
        let stdout = child.stdout.take().expect("stdout");
        let (tx, lines) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                let v = serde_json::from_str(&line).unwrap_or(Value::String(line));
                if tx.send(v).is_err() {
                    break;
                }
            }
        });
        let stderr = Arc::new(Mutex::new(String::new()));
        let mut err = child.stderr.take().expect("stderr");
        let kept = stderr.clone();
        std::thread::spawn(move || {
            let mut buf = [0u8; 4096];
            while let Ok(n) = err.read(&mut buf) {
                if n == 0 {
                    break;
                }
                if let Ok(mut s) = kept.lock() {
                    s.push_str(&String::from_utf8_lossy(&buf[..n]));
                }
            }
        });
        let stdin = child.stdin.take();
        let mut w = Wire {
            child,
            stdin,
            lines,
            seen: Vec::new(),
            stderr,
            next_id: 1000,
            init: Value::Null,
        };
        let init = w.request(
            "initialize",
            json!({"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "wire", "version": "1"}}),
        );
        w.init = w
            .response(&init, Duration::from_secs(10))
            .expect("initialize is answered")["result"]
            .clone();
        w.send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
        w
    }

    fn send_raw(&mut self, bytes: &[u8]) {
        let stdin = self.stdin.as_mut().expect("stdin is open");
        stdin.write_all(bytes).expect("the server reads");
        stdin.flush().expect("flushed");
    }

    fn send(&mut self, v: Value) {
        let mut line = v.to_string().into_bytes();
        line.push(b'\n');
        self.send_raw(&line);
    }

    fn request(&mut self, method: &str, params: Value) -> Value {
        self.next_id += 1;
        let id = json!(self.next_id);
        self.send(json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        id
    }

    /// The answer to request `id` (its result or error object), within `within`.
    fn response(&mut self, id: &Value, within: Duration) -> Option<Value> {
        let until = Instant::now() + within;
        loop {
            if let Some(i) = self
                .seen
                .iter()
                .position(|m| m.get("id") == Some(id) && m.get("method").is_none())
            {
                return Some(self.seen.remove(i));
            }
            let left = until.checked_duration_since(Instant::now())?;
            match self.lines.recv_timeout(left) {
                Ok(m) => self.seen.push(m),
                Err(_) => return None,
            }
        }
    }

    /// Calls a tool and returns its result.
    fn call(&mut self, tool: &str, args: Value) -> Value {
        let id = self.request("tools/call", json!({"name": tool, "arguments": args}));
        let r = self
            .response(&id, Duration::from_secs(40))
            .unwrap_or_else(|| panic!("{tool} {args} is answered"));
        r.get("result")
            .cloned()
            .unwrap_or_else(|| panic!("{tool} {args}: {r}"))
    }

    fn tools(&mut self) -> Vec<Value> {
        let id = self.request("tools/list", json!({}));
        let r = self
            .response(&id, Duration::from_secs(10))
            .expect("tools/list is answered");
        r["result"]["tools"].as_array().cloned().unwrap_or_default()
    }

    fn close_stdin(&mut self) {
        self.stdin = None;
    }

    /// How long the process took to exit, if it did within `within`.
    fn exited_within(&mut self, within: Duration) -> Option<Duration> {
        let started = Instant::now();
        while started.elapsed() < within {
            if let Ok(Some(_)) = self.child.try_wait() {
                return Some(started.elapsed());
            }
            std::thread::sleep(Duration::from_millis(1));
        }
        None
    }

    fn stderr(&self) -> String {
        self.stderr.lock().map(|s| s.clone()).unwrap_or_default()
    }

    /// Whether the server's stderr comes to hold `needle` within `timeout` (its reader runs
    /// on a thread of its own, so a line written before an answer may be read after it).
    fn stderr_comes_to_hold(&self, needle: &str, timeout: Duration) -> bool {
        let deadline = Instant::now() + timeout;
        loop {
            if self.stderr().contains(needle) {
                return true;
            }
            if Instant::now() >= deadline {
                return false;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
    }
}

impl Drop for Wire {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn text(result: &Value) -> String {
    result["content"]
        .as_array()
        .map(|c| c.iter().filter_map(|b| b["text"].as_str()).collect())
        .unwrap_or_default()
}

const BUSY: &str = r#"title: a page that never idles
subtest "busy"
  page top https://a.test/
  task in top:
    on top toolchange:
      c = AbortController()
      top.registerTool({name: "flicker", description: "d", execute: returns(1)}, {signal: c.signal})
      c.abort()
    top.registerTool({name: "start", description: "d", execute: returns("started")})
"#;

/// The page never idles: every wait still answers by its deadline (plus 50 ms), a wait that
/// holds answers at once, and observe and page-tool calls are answered.
fn busy_page_answers(clock: &[&str]) {
    let file = scenario_file("busy", BUSY);
    let mut w = Wire::start(&file, clock);
    // A call and an observation are answered (the page's backlog of toolchange tasks grows
    // as it runs: they come first).
    let started = Instant::now();
    let r = w.call("webmcp_call", json!({"tool": "start", "timeoutMs": 5000}));
    assert!(text(&r).contains("started"), "{}", text(&r));
    let r = w.call("webmcp_observe", json!({"timeoutMs": 2000}));
    assert!(
        r["structuredContent"]["outcome"] == "ready"
            || r["structuredContent"]["outcome"] == "no-observation",
        "{r}"
    );
    assert!(
        started.elapsed() < Duration::from_millis(7200),
        "{:?}",
        started.elapsed()
    );
    let started = Instant::now();
    let r = w.call("webmcp_wait_for", json!({"condition": "tool", "name": "start"}));
    assert!(text(&r).contains("holds"), "{}", text(&r));
    assert!(
        started.elapsed() < Duration::from_millis(100),
        "{:?}",
        started.elapsed()
    );
    let mut overshoots = Vec::new();
    for timeout in [100u64, 300] {
        let started = Instant::now();
        let r = w.call(
            "webmcp_wait_for",
            json!({"condition": "tool", "name": "never", "timeoutMs": timeout}),
        );
        let took = started.elapsed();
        assert!(text(&r).contains("Timed out after"), "{}", text(&r));
        assert_eq!(r["structuredContent"]["outcome"], "timed-out");
        overshoots.push(took.saturating_sub(Duration::from_millis(timeout)));
        assert!(
            took < Duration::from_millis(timeout + 50),
            "a {timeout} ms wait took {took:?}"
        );
    }
    eprintln!("busy page {clock:?}: deadline overshoot {overshoots:?}");
}

#[test]
fn a_busy_page_does_not_hold_up_any_answer_in_real_time() {
    busy_page_answers(&[]);
}

#[test]
fn a_busy_page_does_not_hold_up_any_answer_on_the_virtual_clock() {
    busy_page_answers(&["--virtual"]);
}

#[test]
fn the_binary_exits_within_100_ms_when_stdin_closes_during_a_wait_and_a_call() {
    let pending = scenario_file(
        "pending",
        r#"title: t
subtest "s"
  page top https://a.test/
  task in top: top.registerTool({name: "slow", description: "d", execute: pending})
"#,
    );
    for (tool, args) in [
        (
            "webmcp_wait_for",
            json!({"condition": "tool", "name": "never", "timeoutMs": 30000}),
        ),
        ("webmcp_call", json!({"tool": "slow"})),
        ("webmcp_observe", json!({})),
    ] {
        let mut w = Wire::start(&pending, &[]);
        w.request("tools/call", json!({"name": tool, "arguments": args}));
        std::thread::sleep(Duration::from_millis(100));
        w.close_stdin();
        let took = w.exited_within(Duration::from_secs(3));
        eprintln!("{tool}: exit after stdin closed: {took:?}");
        assert!(
            took.is_some_and(|t| t < Duration::from_millis(100)),
            "{tool}: {took:?}"
        );
    }
}

#[test]
fn every_malformed_message_gets_its_json_rpc_error() {
    let mut w = Wire::start(&format!("{ROOT}/served/shop.scn"), &["--subtest", "late"]);
    let expect = |w: &mut Wire, line: &[u8], id: Value, code: i64| {
        let mut line = line.to_vec();
        line.push(b'\n');
        w.send_raw(&line);
        let r = w
            .response(&id, Duration::from_secs(5))
            .unwrap_or_else(|| panic!("no answer to {}", String::from_utf8_lossy(&line)));
        assert_eq!(r["error"]["code"], code, "{r}");
    };
    expect(&mut w, b"{not json", Value::Null, -32700);
    expect(&mut w, b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\xff\"}", Value::Null, -32700);
    expect(
        &mut w,
        br#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"webmcp_wait_for","arguments":{"condition":"\ud800"}}}"#,
        json!(2),
        -32602,
    );
    // U+10F800, which stands for a lone surrogate inside the engine, written as itself.
    expect(
        &mut w,
        "{\"jsonrpc\":\"2.0\",\"id\":21,\"method\":\"tools/call\",\"params\":{\"name\":\"webmcp_wait_for\",\"arguments\":{\"condition\":\"\u{10F800}\"}}}".as_bytes(),
        json!(21),
        -32602,
    );
    expect(
        &mut w,
        br#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"webmcp_wait_for","arguments":{"condition":"tools-ready","timeoutMs":1e400}}}"#,
        json!(3),
        -32602,
    );
    expect(
        &mut w,
        br#"{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":5}}"#,
        json!(4),
        -32602,
    );
    expect(
        &mut w,
        br#"{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"webmcp_observe","arguments":"x"}}"#,
        json!(5),
        -32602,
    );
    expect(&mut w, br#"[{"jsonrpc":"2.0","id":6,"method":"ping"}]"#, Value::Null, -32600);
    expect(&mut w, br#"{"jsonrpc":"2.0","id":{},"method":"ping"}"#, Value::Null, -32600);
    expect(&mut w, br#"{"id":7,"method":"ping"}"#, json!(7), -32600);
    // A line over 16 MiB.
    let mut long = b"{\"jsonrpc\":\"2.0\",\"id\":8,\"method\":\"ping\",\"params\":{\"x\":\"".to_vec();
    long.extend(std::iter::repeat_n(b'a', 17 << 20));
    long.extend(b"\"}}");
    expect(&mut w, &long, Value::Null, -32700);
    // Two requests sharing an id: the second is refused while the first is under way, and the
    // first still gets its own answer.
    w.send(json!({"jsonrpc": "2.0", "id": 9, "method": "tools/call", "params": {"name": "webmcp_wait_for", "arguments": {"condition": "tool", "name": "never", "timeoutMs": 300}}}));
    std::thread::sleep(Duration::from_millis(50));
    expect(
        &mut w,
        br#"{"jsonrpc":"2.0","id":9,"method":"ping"}"#,
        json!(9),
        -32600,
    );
    let first = w
        .response(&json!(9), Duration::from_secs(5))
        .expect("the first request with id 9 is answered");
    assert!(text(&first["result"]).contains("Timed out after 300 ms"), "{first}");
    // A malformed notification cannot be answered: a line on stderr.
    w.send_raw(b"{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":\"x\"}\n");
    // The server still works.
    let id = w.request("ping", json!({}));
    assert!(w.response(&id, Duration::from_secs(5)).is_some());
    assert!(
        w.stderr_comes_to_hold("dropped a notification", Duration::from_secs(5)),
        "{}",
        w.stderr()
    );
}

/// Removes the marked regions of a markdown text: the notice, fenced blocks and code spans.
fn unmarked(text: &str) -> String {
    let mut out = String::new();
    let mut fence: Option<usize> = None;
    for line in text.lines() {
        let trimmed = line.trim_start();
        let ticks = trimmed.chars().take_while(|&c| c == '`').count();
        match fence {
            Some(n) => {
                if ticks >= n && trimmed[ticks..].trim().is_empty() {
                    fence = None;
                }
                continue;
            }
            None if ticks >= 3 => {
                fence = Some(ticks);
                continue;
            }
            None => {}
        }
        if line == UNTRUSTED_NOTICE {
            continue;
        }
        out.push_str(&without_code_spans(line));
        out.push('\n');
    }
    out
}

/// CommonMark code spans: a run of n backticks closes at the next run of exactly n.
fn without_code_spans(line: &str) -> String {
    let chars: Vec<char> = line.chars().collect();
    let mut out = String::new();
    let mut i = 0;
    while i < chars.len() {
        if chars[i] != '`' {
            out.push(chars[i]);
            i += 1;
            continue;
        }
        let n = chars[i..].iter().take_while(|&&c| c == '`').count();
        let mut j = i + n;
        let mut closed = None;
        while j < chars.len() {
            if chars[j] == '`' {
                let m = chars[j..].iter().take_while(|&&c| c == '`').count();
                if m == n {
                    closed = Some(j + m);
                    break;
                }
                j += m;
            } else {
                j += 1;
            }
        }
        match closed {
            Some(end) => {
                out.push_str("<code>");
                i = end;
            }
            None => {
                out.extend(&chars[i..i + n]);
                i += n;
            }
        }
    }
    out
}

/// A text an agent reads: the word shows only inside the marked region of a noticed text.
fn assert_marked(what: &str, text: &str, word: &str) {
    assert_quoted(what, text, word);
    if text.contains(word) {
        assert!(
            text.contains(UNTRUSTED_NOTICE),
            "{what}: {word} without the notice:\n{text}"
        );
    }
}

/// The word shows only inside code spans and fenced blocks.
fn assert_quoted(what: &str, text: &str, word: &str) {
    let rest = unmarked(text);
    assert!(
        !rest.contains(word),
        "{what}: {word} outside the marked region:\n{rest}\n--- in ---\n{text}"
    );
}

/// A tool result: its text, and its structured content outside `untrusted`.
fn assert_result_marked(what: &str, result: &Value) {
    assert_marked(what, &text(result), "INJECTED");
    let mut own = result["structuredContent"].clone();
    if let Some(o) = own.as_object_mut() {
        o.remove(UNTRUSTED_KEY);
        o.remove("untrustedNotice");
    }
    assert!(
        !own.to_string().contains("INJECTED"),
        "{what}: structured content outside `untrusted`: {own}"
    );
}

#[test]
fn a_hostile_page_reaches_the_model_only_marked_on_every_path() {
    let mut w = Wire::start(&format!("{ROOT}/served/hostile.scn"), &[]);
    // The instructions name the scenario's title and subtest: marked.
    let instructions = w.init["instructions"].as_str().unwrap_or_default().to_string();
    assert!(instructions.contains("INJECTED"), "{instructions}");
    assert_marked("instructions", &instructions, "INJECTED");
    let r = w.call("webmcp_wait_for", json!({"condition": "tools-ready"}));
    assert_result_marked("tools-ready", &r);
    let tools = w.tools();
    assert!(tools.len() >= 8, "{tools:?}");
    for t in &tools {
        let name = t["name"].as_str().unwrap_or_default();
        for field in [&t["name"], &t["title"], &t["annotations"]["title"], &t["inputSchema"], &t["outputSchema"]] {
            assert!(
                !field.to_string().contains("INJECTED"),
                "tools/list {name}: {field}"
            );
        }
        assert_marked(
            &format!("tools/list {name} description"),
            t["description"].as_str().unwrap_or_default(),
            "INJECTED",
        );
    }
    // The page's readOnlyHint is its own claim: not in the annotations.
    let listed = |w: &str| {
        tools
            .iter()
            .find(|t| t["description"].as_str().is_some_and(|d| d.contains(w)))
            .and_then(|t| t["name"].as_str())
            .map(String::from)
            .unwrap_or_default()
    };
    let tool = listed("\"name\": \"INJECTED_tool\"");
    let schema = &tools.iter().find(|t| t["name"] == tool.as_str()).expect("listed")["inputSchema"];
    assert_eq!(schema["properties"]["q"], json!({"type": "string"}), "{schema}");
    let named = listed("\"name\": \"INJECTED_named_schema\"");
    assert_eq!(
        tools.iter().find(|t| t["name"] == named.as_str()).expect("listed")["inputSchema"],
        json!({"type": "object"})
    );
    let answers = [
        ("observe", w.call("webmcp_observe", json!({}))),
        ("tool holds", w.call("webmcp_wait_for", json!({"condition": "tool", "name": "*"}))),
        ("tool-gone times out", w.call("webmcp_wait_for", json!({"condition": "tool-gone", "name": "*", "timeoutMs": 100}))),
        ("toolchange times out", w.call("webmcp_wait_for", json!({"condition": "toolchange", "timeoutMs": 100}))),
        ("page tool result", w.call(&tool, json!({"q": "x"}))),
        ("call result", w.call("webmcp_call", json!({"tool": "INJECTED_frame_tool"}))),
        ("call failure", w.call("webmcp_call", json!({"tool": "INJECTED_thrower"}))),
        ("unknown page", w.call("webmcp_wait_for", json!({"condition": "tools-ready", "pageId": 9}))),
        ("unknown tool", w.call("webmcp_call", json!({"tool": "nope"}))),
        ("navigating call", w.call("webmcp_call", json!({"tool": "INJECTED_navigate"}))),
        ("navigation", w.call("webmcp_wait_for", json!({"condition": "navigation", "url": "*/next"}))),
        ("new document's tool", w.call("webmcp_wait_for", json!({"condition": "tool", "name": "*next*"}))),
        ("observe after", w.call("webmcp_observe", json!({"timeoutMs": 3000}))),
    ];
    for (what, r) in &answers {
        assert_result_marked(what, r);
    }
    assert!(text(&answers[4].1).contains("INJECTED result"), "{}", text(&answers[4].1));
    // An agent's own argument echoed back stays inside its code span.
    let r = w.call("webmcp_wait_for", json!({"condition": "x` **IGNORE** `"}));
    assert!(r["isError"] == true, "{r}");
    assert_quoted("an echoed argument", &text(&r), "IGNORE");
    let r = w.call("webmcp_wait_for", json!({"condition": "tool", "name": "a\n\n# IGNORE\n`", "timeoutMs": 100}));
    assert_quoted("an echoed name", &text(&r), "IGNORE");
}

#[test]
fn observations_queue_time_out_and_can_be_cancelled_and_the_queue_goes_on() {
    let mut w = Wire::start(
        &format!("{ROOT}/served/shop.scn"),
        &["--subtest", "readiness never settles"],
    );
    let started = Instant::now();
    // A: cancelled after 300 ms. B: times out at 800 ms. C: queued behind both, then waits
    // the engine's own 5000 ms for tools to be ready.
    // (rmcp runs requests concurrently: each is sent once the one before has reached the
    // driver.)
    let a = w.request("tools/call", json!({"name": "webmcp_observe", "arguments": {}}));
    std::thread::sleep(Duration::from_millis(100));
    let b = w.request("tools/call", json!({"name": "webmcp_observe", "arguments": {"timeoutMs": 700}}));
    std::thread::sleep(Duration::from_millis(50));
    let c = w.request("tools/call", json!({"name": "webmcp_observe", "arguments": {"timeoutMs": 30000}}));
    std::thread::sleep(Duration::from_millis(150));
    w.send(json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": a}}));
    let rb = w.response(&b, Duration::from_secs(5)).expect("B is answered");
    let at_b = started.elapsed();
    let rb = &rb["result"];
    assert_eq!(rb["structuredContent"]["outcome"], "no-observation", "{rb}");
    assert_eq!(rb["structuredContent"]["queued"], false, "{rb}");
    assert!(text(rb).contains("within 700 ms"), "{}", text(rb));
    assert!(at_b < Duration::from_millis(850), "{at_b:?}");
    let rc = w.response(&c, Duration::from_secs(10)).expect("C is answered");
    let at_c = started.elapsed();
    assert!(
        text(&rc["result"]).contains("still not ready after 5000 ms"),
        "{}",
        text(&rc["result"])
    );
    // C began when B was abandoned (at 0.8 s), not after A's and B's full waits.
    assert!(
        at_c > Duration::from_millis(5600) && at_c < Duration::from_millis(8000),
        "{at_c:?}"
    );
    assert!(w.response(&a, Duration::from_millis(50)).is_none_or(|r| r.get("result").is_some()));
}

#[test]
fn tools_list_observe_call_and_the_wait_conditions_share_one_visibility_rule() {
    let mut w = Wire::start(
        &format!("{ROOT}/served/shop.scn"),
        &["--subtest", "readiness never settles", "--virtual"],
    );
    let tools = w.tools();
    let offers = tools
        .iter()
        .find(|t| t["description"].as_str().is_some_and(|d| d.contains("\"name\": \"offers\"")))
        .expect("the cross-origin frame's tool is listed");
    let mcp = offers["name"].as_str().unwrap_or_default().to_string();
    let r = w.call("webmcp_wait_for", json!({"condition": "tool", "name": "offers", "timeoutMs": 100}));
    assert!(text(&r).contains("holds (after 0 ms)"), "{}", text(&r));
    assert!(text(&r).contains(&format!("`{mcp}`")), "{}", text(&r));
    let r = w.call("webmcp_wait_for", json!({"condition": "tool-gone", "name": "offers", "timeoutMs": 100}));
    assert!(text(&r).contains("Timed out after 100 ms"), "{}", text(&r));
    let r = w.call("webmcp_call", json!({"tool": "offers"}));
    assert!(text(&r).contains("none"), "{}", text(&r));
    let r = w.call("webmcp_observe", json!({}));
    assert!(text(&r).contains(&format!("(MCP tool `{mcp}`)")), "{}", text(&r));
}

#[test]
fn a_round_trip_stays_fast_with_1000_waits_pending() {
    let mut w = Wire::start(&format!("{ROOT}/served/shop.scn"), &["--subtest", "late"]);
    for _ in 0..1000 {
        w.request(
            "tools/call",
            json!({"name": "webmcp_wait_for", "arguments": {"condition": "tool", "name": "never", "timeoutMs": 30000}}),
        );
    }
    // Every wait has reached the driver once a later request is answered.
    let id = w.request("tools/call", json!({"name": "webmcp_wait_for", "arguments": {"condition": "tool-gone", "name": "never"}}));
    w.response(&id, Duration::from_secs(20)).expect("answered");
    let mut rounds = Vec::new();
    for _ in 0..20 {
        let started = Instant::now();
        let id = w.request("tools/call", json!({"name": "webmcp_wait_for", "arguments": {"condition": "tool-gone", "name": "never"}}));
        w.response(&id, Duration::from_secs(5)).expect("answered");
        rounds.push(started.elapsed());
    }
    rounds.sort();
    eprintln!("round trip with 1000 waits pending: {rounds:?}");
    assert!(rounds[10] < Duration::from_millis(50), "{rounds:?}");
    // The late tool still comes on time (1.5 s after serving started).
    let r = w.call("webmcp_wait_for", json!({"condition": "tool", "name": "search"}));
    assert!(text(&r).contains("holds"), "{}", text(&r));
}

#[test]
fn navigation_is_offered_only_when_something_served_can_navigate() {
    let file = scenario_file(
        "after-serve",
        r#"title: t
subtest "s"
  page top https://a.test/
  serve
  navigate top to https://a.test/next as next
  run
"#,
    );
    let mut w = Wire::start(&file, &["--virtual"]);
    let tools = w.tools();
    let wait = tools.iter().find(|t| t["name"] == "webmcp_wait_for").expect("listed");
    assert_eq!(
        wait["inputSchema"]["properties"]["condition"]["enum"],
        json!(["tools-ready", "tool", "tool-gone", "toolchange"])
    );
    // Under --virtual a wait moves the page's clock: no gateway tool says it is read-only.
    for t in &tools {
        assert_eq!(t["annotations"]["readOnlyHint"], false, "{t}");
    }
    let mut w = Wire::start(&format!("{ROOT}/served/shop.scn"), &["--subtest", "late"]);
    let tools = w.tools();
    let observe = tools.iter().find(|t| t["name"] == "webmcp_observe").expect("listed");
    assert_eq!(observe["annotations"]["readOnlyHint"], true);
    for t in &tools {
        assert!(t["outputSchema"].is_object(), "{t}");
    }
}

#[test]
fn a_tool_of_another_page_is_found_without_page_and_calls_time_out() {
    let file = scenario_file(
        "two-pages",
        r#"title: t
subtest "s"
  page first https://a.test/
  page other https://b.test/
  task in other:
    other.registerTool({name: "o", description: "d", execute: returns("from other")})
    other.registerTool({name: "slow", description: "d", execute: pending})
"#,
    );
    let mut w = Wire::start(&file, &[]);
    let r = w.call("webmcp_call", json!({"tool": "o"}));
    assert!(text(&r).contains("from other"), "{}", text(&r));
    let r = w.call("webmcp_call", json!({"tool": "page2.tool1"}));
    assert!(text(&r).contains("from other"), "{}", text(&r));
    let started = Instant::now();
    let r = w.call("webmcp_call", json!({"tool": "slow", "timeoutMs": 200}));
    assert_eq!(r["isError"], true);
    assert!(text(&r).contains("did not answer within 200 ms"), "{}", text(&r));
    assert!(started.elapsed() < Duration::from_millis(400), "{:?}", started.elapsed());
}

#[test]
fn http_listens_on_loopback_only_and_answers_at_mcp() {
    let out = Command::new(BIN)
        .args(["serve", "served/shop.scn", "--subtest", "late", "--http", "0.0.0.0:0"])
        .current_dir(ROOT)
        .stdin(Stdio::null())
        .output()
        .expect("runs");
    assert!(!out.status.success());
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("loopback only"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let (mut child, address) = crate::common::http_server(&[]);
    let post = |path: &str| {
        let body = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "raw", "version": "1"}}}).to_string();
        let mut s = std::net::TcpStream::connect(&address).expect("connects");
        s.set_read_timeout(Some(Duration::from_secs(5))).ok();
        write!(
            s,
            "POST {path} HTTP/1.1\r\nHost: {address}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
            body.len()
        )
        .expect("sent");
        let mut answer = String::new();
        let _ = s.read_to_string(&mut answer);
        answer
    };
    let answer = post("/mcp");
    assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
    assert!(answer.contains("webmcp-ref"), "{answer}");
    let answer = post("/elsewhere");
    assert!(answer.starts_with("HTTP/1.1 404"), "{answer}");
    let _ = child.kill();
    let _ = child.wait();
}


#[test]
fn http_refuses_requests_from_origins_off_loopback() {
    let (mut child, address) = crate::common::http_server(&[]);
    let port = address.rsplit(':').next().expect("a port").to_string();
    let post = |origin: Option<&str>| {
        let body = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "raw", "version": "1"}}}).to_string();
        let mut s = std::net::TcpStream::connect(&address).expect("connects");
        s.set_read_timeout(Some(Duration::from_secs(5))).ok();
        let origin = origin.map_or(String::new(), |o| format!("Origin: {o}\r\n"));
        write!(
            s,
            "POST /mcp HTTP/1.1\r\nHost: {address}\r\n{origin}Content-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
            body.len()
        )
        .expect("sent");
        let mut answer = String::new();
        let _ = s.read_to_string(&mut answer);
        answer
    };
    // An agent that is not a browser sends no Origin; a page on this machine's loopback may.
    for origin in [
        None,
        Some(format!("http://localhost:{port}")),
        Some(format!("http://127.0.0.1:{port}")),
        Some("http://[::1]:8080".to_string()),
        Some("https://localhost".to_string()),
    ] {
        let answer = post(origin.as_deref());
        assert!(answer.starts_with("HTTP/1.1 200"), "{origin:?}: {answer}");
    }
    // Any other page, an opaque origin, or a name that only starts like a loopback one: 403,
    // and no session.
    for origin in [
        "https://evil.example",
        "null",
        "http://127.0.0.1.evil.example",
        "http://localhost.evil.example:8080",
    ] {
        let answer = post(Some(origin));
        assert!(answer.starts_with("HTTP/1.1 403"), "{origin}: {answer}");
        assert!(
            !answer.to_ascii_lowercase().contains("mcp-session-id"),
            "{origin}: {answer}"
        );
    }
    let _ = child.kill();
    let _ = child.wait();
}

/// The request metadata 2026-07-28 puts on every request in place of a handshake.
fn modern_meta() -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientInfo": {"name": "wire", "version": "1"},
        "io.modelcontextprotocol/clientCapabilities": {}
    })
}

#[test]
fn on_2026_07_28_discover_says_list_changed_and_a_listen_stream_hears_it() {
    let file = scenario_file(
        "modern",
        "title: t\nsubtest \"late\"\n  page top https://a.test/\n  at 300ms:\n    task in top:\n      top.registerTool({name: \"search\", description: \"d\", inputSchema: {type: \"object\", properties: {query: {type: \"string\"}}, required: [\"query\"]}, execute: returns(\"found\")})\n  serve\n",
    );
    let mut child = Command::new(BIN)
        .arg("serve")
        .arg(&file)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("starts");
    let mut stdin = child.stdin.take().expect("stdin");
    let stdout = child.stdout.take().expect("stdout");
    let (tx, lines) = mpsc::channel::<Value>();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            if tx.send(serde_json::from_str(&line).unwrap_or(Value::Null)).is_err() {
                break;
            }
        }
    });
    let mut send = |v: Value| writeln!(stdin, "{v}").expect("sent");
    let next = |lines: &mpsc::Receiver<Value>| {
        lines
            .recv_timeout(Duration::from_secs(10))
            .expect("an answer")
    };
    // No initialize: server/discover says what the server does, tool list changes included.
    send(json!({"jsonrpc": "2.0", "id": 1, "method": "server/discover", "params": {"_meta": modern_meta()}}));
    let discovered = next(&lines);
    assert!(
        discovered["result"]["supportedVersions"]
            .as_array()
            .is_some_and(|v| v.contains(&json!("2026-07-28")) && v.contains(&json!("2025-11-25"))),
        "{discovered}"
    );
    assert_eq!(
        discovered["result"]["capabilities"]["tools"]["listChanged"],
        true,
        "{discovered}"
    );
    // A listen stream for tool list changes is acknowledged, and hears the late tool.
    send(json!({"jsonrpc": "2.0", "id": 2, "method": "subscriptions/listen", "params": {"_meta": modern_meta(), "notifications": {"toolsListChanged": true}}}));
    let ack = next(&lines);
    assert_eq!(ack["method"], "notifications/subscriptions/acknowledged", "{ack}");
    assert_eq!(ack["params"]["notifications"]["toolsListChanged"], true);
    let changed = next(&lines);
    assert_eq!(changed["method"], "notifications/tools/list_changed", "{changed}");
    assert_eq!(
        changed["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"],
        2
    );
    // The page tool's arguments are checked against the inputSchema it is listed with.
    send(json!({"jsonrpc": "2.0", "id": 3, "method": "tools/list", "params": {"_meta": modern_meta()}}));
    let listed = next(&lines);
    let search = listed["result"]["tools"]
        .as_array()
        .and_then(|t| t.iter().find(|t| t["name"] == "page1.tool1"))
        .cloned()
        .unwrap_or_else(|| panic!("{listed}"));
    assert_eq!(search["inputSchema"]["required"], json!(["query"]));
    for (id, arguments, outcome) in [
        (4, json!({}), "bad-arguments"),
        (5, json!({"query": 7}), "bad-arguments"),
        (6, json!({"query": "tea"}), "returned"),
    ] {
        send(json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {"_meta": modern_meta(), "name": "page1.tool1", "arguments": arguments}}));
        let answer = next(&lines);
        let result = &answer["result"];
        assert_eq!(result["structuredContent"]["outcome"], outcome, "{answer}");
        assert_eq!(result["isError"], outcome != "returned", "{answer}");
        if outcome == "bad-arguments" {
            assert!(text(result).contains("inputSchema"), "{answer}");
            assert!(text(result).contains("/query"), "{answer}");
        }
    }
    let _ = child.kill();
    let _ = child.wait();
}

#[test]
fn closing_stdin_before_the_first_request_exits_0_as_the_help_says() {
    let mut child = Command::new(BIN)
        .args(["serve", "served/shop.scn", "--subtest", "late"])
        .current_dir(ROOT)
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("starts");
    drop(child.stdin.take());
    let status = child.wait().expect("exits");
    assert_eq!(status.code(), Some(0));
    let help = Command::new(BIN)
        .args(["serve", "--help"])
        .output()
        .expect("runs");
    let help = String::from_utf8_lossy(&help.stdout);
    assert!(help.contains("0  the agent closed the connection"), "{help}");
    assert!(help.contains("pageP.toolN") && !help.contains("FRAME.TOOL"), "{help}");
}
