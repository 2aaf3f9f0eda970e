//! A subtest's step trace, as `webmcp-ref trace` prints it: read like a log (human), or one
//! JSON object a line between a header and the subtest's result (JSON lines).

use std::fmt::Write as _;

use serde_json::json;

use crate::scenario::SubtestResult;

/// The trace of one subtest run under `profile`, with the schedule that produced it, its
/// result, and each expectation that failed.
pub fn human(path: &str, sub: &SubtestResult, profile: &str) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "== {path} :: {:?} [{profile}] ==", sub.name);
    let _ = writeln!(
        out,
        "schedule: {}  ({} choice points, {} units, {} ms virtual)",
        sub.schedule, sub.choice_points, sub.units, sub.time
    );
    for e in sub.trace.iter().filter(|e| e.is_printed()) {
        let _ = writeln!(out, "{e}");
    }
    let _ = writeln!(out, "result: {:?}", sub.status);
    for e in sub.expectations.iter().filter(|e| !e.passed) {
        let _ = writeln!(
            out,
            "  {path}:{}: {}\n    expected: {}\n    actual:   {}",
            e.line, e.text, e.expected, e.actual
        );
    }
    for m in &sub.messages {
        let _ = writeln!(out, "  {m}");
    }
    out.push('\n');
    out
}

/// The same as JSON lines: a `subtest` header, one object per trace entry, and a `result`.
pub fn jsonl(path: &str, sub: &SubtestResult, profile: &str) -> Result<String, serde_json::Error> {
    let mut out = String::new();
    let header = json!({"kind": "subtest", "file": path, "subtest": sub.name, "profile": profile, "schedule": sub.schedule});
    let _ = writeln!(out, "{header}");
    for e in sub.trace.iter().filter(|e| e.is_printed()) {
        let _ = writeln!(out, "{}", serde_json::to_string(e)?);
    }
    let footer = json!({"kind": "result", "status": sub.status, "messages": sub.messages, "expectations": sub.expectations});
    let _ = writeln!(out, "{footer}");
    Ok(out)
}
