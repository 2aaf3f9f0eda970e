//! A subtest's step trace, as `webmcp-ref trace` prints it: read like a log (human), or one
//! JSON object a line between a header and the subtest's result (JSON lines). Each is written
//! entry by entry to the output, never held whole as one text.

use std::io::{self, Write};

use serde_json::json;

use crate::scenario::SubtestResult;
use crate::text::escape::{cut, READABLE_CHARS};
use crate::text::js_string::escape_lone_surrogates;
use crate::text::js_string::quoted;

/// The trace of one subtest run under `profile`, with the schedule that produced it, its
/// result, and each expectation that failed.
pub fn human(path: &str, sub: &SubtestResult, profile: &str) -> String {
    let mut out = Vec::new();
    let _ = write_human(&mut out, path, sub, profile);
    String::from_utf8_lossy(&out).into_owned()
}

/// [`human`], written to `out` as it goes.
pub fn write_human(
    out: &mut impl Write,
    path: &str,
    sub: &SubtestResult,
    profile: &str,
) -> io::Result<()> {
    writeln!(out, "== {path} :: {} [{profile}] ==", quoted(&sub.name))?;
    writeln!(
        out,
        "schedule: {}  ({} choice points, {} units, {} ms virtual)",
        sub.schedule, sub.choice_points, sub.units, sub.time
    )?;
    for e in sub.trace.iter().filter(|e| e.is_printed()) {
        writeln!(out, "{e}")?;
    }
    writeln!(out, "result: {:?}", sub.status)?;
    // A value too long to read is cut here; `--format jsonl` has it whole.
    for e in sub.expectations.iter().filter(|e| !e.passed) {
        writeln!(
            out,
            "  {path}:{}: {}\n    expected: {}\n    actual:   {}",
            e.line,
            e.text,
            cut(&e.expected, READABLE_CHARS),
            cut(&e.actual, READABLE_CHARS)
        )?;
    }
    for m in &sub.messages {
        writeln!(out, "  {}", cut(m, 2000))?;
    }
    writeln!(out)
}

/// The same as JSON lines: a `subtest` header, one object per trace entry, and a `result`.
pub fn jsonl(path: &str, sub: &SubtestResult, profile: &str) -> Result<String, serde_json::Error> {
    let mut out = Vec::new();
    write_jsonl(&mut out, path, sub, profile)?;
    Ok(String::from_utf8_lossy(&out).into_owned())
}

/// [`jsonl`], written to `out` as it goes.
pub fn write_jsonl(
    out: &mut impl Write,
    path: &str,
    sub: &SubtestResult,
    profile: &str,
) -> Result<(), serde_json::Error> {
    // A lone surrogate (text::js_string) is written as JSON's escape of it.
    let mut line = |text: String| {
        writeln!(out, "{}", escape_lone_surrogates(&text)).map_err(serde_json::Error::io)
    };
    let header = json!({"kind": "subtest", "file": path, "subtest": sub.name, "profile": profile, "schedule": sub.schedule});
    line(header.to_string())?;
    for e in sub.trace.iter().filter(|e| e.is_printed()) {
        line(serde_json::to_string(e)?)?;
    }
    let footer = json!({"kind": "result", "status": sub.status, "messages": sub.messages, "expectations": sub.expectations});
    line(footer.to_string())
}
