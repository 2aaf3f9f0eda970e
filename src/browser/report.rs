//! Output of `diff-browser` (human, JSON, wptreport of the browser's side) and of
//! `export-wpt`.

use std::fmt::Write as _;
use std::path::Path;

use serde_json::json;

use super::{DiffRun, FileDiff, OutputFormat, SubtestDiff, Verdict};
use crate::export::ExportedFile;

/// What `export-wpt` says it wrote.
pub fn export_summary(files: &[ExportedFile], out: &Path) -> String {
    let mut text = String::new();
    let (mut total, mut exported, mut marked, mut written) = (0, 0, 0, 0);
    for f in files {
        let n = f.subtests.len();
        let e = f.exported().count();
        let m = f
            .exported()
            .filter(|s| s.exported_name.as_deref() != Some(s.name.as_str()))
            .count();
        total += n;
        exported += e;
        marked += m;
        written += usize::from(f.has_test());
        if f.crash_test {
            let _ = writeln!(
                text,
                "{}  a crash test: {n} subtests run in turn, nothing asserted",
                f.test_path
            );
            continue;
        }
        if !f.has_test() {
            let _ = writeln!(
                text,
                "{}  not written: none of its {n} subtests has something a page can check",
                f.test_path
            );
        } else {
            let _ = writeln!(
                text,
                "{}  {e} of {n} subtests{}",
                f.test_path,
                if m > 0 {
                    format!(" ({m} without some lines)")
                } else {
                    String::new()
                }
            );
        }
        for s in f.subtests.iter().filter(|s| s.exported_name.is_none()) {
            let mut why: Vec<&str> = Vec::new();
            for l in &s.left_out {
                if l.kind != "after" && !why.contains(&l.kind) {
                    why.push(l.kind);
                }
            }
            let _ = writeln!(
                text,
                "    not exported: {:?} (nothing left that a page can check; left out: {})",
                s.name,
                why.join(", ")
            );
        }
    }
    let _ = writeln!(
        text,
        "\n{written} of {} files written to {}, with the helpers in {}: {exported} of {total} subtests exported, {marked} of them without some lines (their names say which).",
        files.len(),
        out.display(),
        webmcp_ref_resources()
    );
    text
}

fn webmcp_ref_resources() -> String {
    format!("{}/", crate::export::RESOURCE_FOLDER)
}

/// Renders a run.
pub fn render(run: &DiffRun, format: OutputFormat) -> String {
    match format {
        OutputFormat::Human { verbose, suggest } => human(run, verbose, suggest),
        OutputFormat::Json => serde_json::to_string_pretty(run).unwrap_or_default() + "\n",
        OutputFormat::Wptreport => {
            serde_json::to_string_pretty(&wptreport(run)).unwrap_or_default() + "\n"
        }
        OutputFormat::Markdown => markdown(run),
    }
}

/// A table cell: one line, its pipes escaped.
fn cell(s: &str) -> String {
    s.split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .replace('|', "\\|")
}

/// The disagreements as a Markdown table: each subtest, the step of the text it concerns,
/// what each side read, and why (from the known differences).
fn markdown(run: &DiffRun) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "Where {} departs from webmcp-ref's profile `{}`: every subtest of the bundled suite on which they disagree, as `webmcp-ref diff-browser --profile {} --format markdown` finds it ({} run{} of each file).\n",
        run.browser,
        run.profile,
        run.profile,
        run.repeat,
        if run.repeat == 1 { "" } else { "s" }
    );
    let _ = writeln!(out, "| subtest | step of the text | what differs | why |");
    let _ = writeln!(out, "| --- | --- | --- | --- |");
    for (f, s) in run.subtests().filter(|(_, s)| s.verdict == Verdict::Differ) {
        let why = match &s.known {
            Some(k) => {
                let mut w = format!("{} is right: {}", k.right, k.why);
                if let Some(rate) = &k.intermittent {
                    w.push_str(&format!(" (intermittent: {rate})"));
                }
                w
            }
            None => match s.confirmation {
                Some(c) if c.differed == 0 => format!(
                    "not yet explained; it did not show again in {} more run{}",
                    c.reruns,
                    if c.reruns == 1 { "" } else { "s" }
                ),
                _ => "not yet explained".into(),
            },
        };
        let step = s
            .known
            .as_ref()
            .and_then(|k| k.step.clone())
            .unwrap_or_default();
        let what = s.difference.clone().unwrap_or_default();
        let rate = if run.repeat > 1 {
            format!(" (in {} of {} runs)", s.differed_runs, run.repeat)
        } else {
            String::new()
        };
        let _ = writeln!(
            out,
            "| `{}` :: {} (line {}) | {} | {}{} | {} |",
            cell(f.test_path.strip_prefix("webmcp/").unwrap_or(&f.test_path)),
            cell(&s.name),
            s.line,
            cell(&step),
            cell(&what),
            rate,
            cell(&why)
        );
    }
    let stale: Vec<String> = run
        .stale
        .iter()
        .map(|k| format!("{} :: {}", k.file, k.subtest))
        .collect();
    if !stale.is_empty() {
        let _ = writeln!(
            out,
            "\nListed, but agreeing now (stale entries of {}): {}",
            run.known_differences,
            stale.join("; ")
        );
    }
    out
}

fn cut(s: &str, width: usize) -> String {
    if s.chars().count() <= width {
        format!("{s:width$}")
    } else {
        let t: String = s.chars().take(width.saturating_sub(1)).collect();
        format!("{t}…")
    }
}

fn agreement(s: &SubtestDiff, repeat: usize) -> String {
    match s.verdict {
        Verdict::Agree => "agree".into(),
        Verdict::NotExported => "not exported".into(),
        Verdict::Differ => {
            let rate = if repeat > 1 {
                format!(", in {} of {repeat} runs", s.differed_runs)
            } else {
                String::new()
            };
            match (&s.known, s.confirmation) {
                (Some(k), _) => format!("differ (known: {} is right{rate})", k.right),
                (None, Some(c)) if c.differed == 0 => {
                    format!("differ (did not reproduce in {} reruns{rate})", c.reruns)
                }
                (None, Some(c)) => format!(
                    "DIFFER (unexplained{rate}; again in {} of {} reruns)",
                    c.differed, c.reruns
                ),
                (None, None) => format!("DIFFER (unexplained{rate})"),
            }
        }
    }
}

fn human(run: &DiffRun, verbose: bool, suggest: bool) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{} (--enable-features=WebMCP, real time, waits polled up to {} ms) beside webmcp-ref under profile {}\n",
        run.browser, run.margin_ms, run.profile
    );
    let _ = writeln!(
        out,
        "{:<44} {:<56} {:<7} {:<8} agreement",
        "file", "subtest", "engine", "chromium"
    );
    for f in &run.files {
        let file = f.test_path.strip_prefix("webmcp/").unwrap_or(&f.test_path);
        for s in &f.subtests {
            let browser = s.browser.as_ref().map(|b| b.status.as_str()).unwrap_or("-");
            let _ = writeln!(
                out,
                "{} {} {:<7} {:<8} {}",
                cut(file, 44),
                cut(&s.name, 56),
                s.engine.status,
                browser,
                agreement(s, run.repeat)
            );
        }
        if f.harness != "OK" && f.harness != "NOT RUN" {
            let _ = writeln!(
                out,
                "{} (the file's run: {}{})",
                cut(file, 44),
                f.harness,
                f.message
                    .as_ref()
                    .map(|m| format!(": {m}"))
                    .unwrap_or_default()
            );
        }
    }

    let differing: Vec<(&FileDiff, &SubtestDiff)> = run
        .subtests()
        .filter(|(_, s)| s.verdict == Verdict::Differ || (verbose && s.browser.is_some()))
        .collect();
    if !differing.is_empty() {
        let _ = writeln!(
            out,
            "\n{}",
            if verbose { "Subtests" } else { "Disagreements" }
        );
    }
    for (f, s) in &differing {
        details(&mut out, f, s);
    }

    if !run.stale.is_empty() {
        let _ = writeln!(
            out,
            "\nStale known differences (they no longer disagree; remove them from {}):",
            run.known_differences
        );
        for k in &run.stale {
            let _ = writeln!(out, "    line {}: [{} :: {}]", k.line, k.file, k.subtest);
        }
    }
    // The disagreements that fail the run, and those that did not show again.
    let failing: Vec<(&FileDiff, &SubtestDiff)> =
        run.subtests().filter(|(_, s)| s.unexplained()).collect();
    let unreproduced: Vec<(&FileDiff, &SubtestDiff)> = run
        .subtests()
        .filter(|(_, s)| s.did_not_reproduce())
        .collect();
    if suggest && !failing.is_empty() {
        let _ = writeln!(
            out,
            "\nEntries to start {} from (fill in right: and why:):\n",
            run.known_differences
        );
        for (f, s) in &failing {
            let message = s.browser.as_ref().and_then(|b| {
                b.checks
                    .iter()
                    .find(|c| !c.passed && !c.sometimes)
                    .map(|c| c.message.clone())
                    .or_else(|| b.uncaught.first().map(|u| u.text.clone()))
                    .or_else(|| b.message.clone())
            });
            let _ = writeln!(
                out,
                "{}",
                super::known::suggestion(
                    &f.test_path,
                    &s.name,
                    message.as_deref(),
                    (s.differed_runs < run.repeat).then_some(super::known::Rate {
                        seen: s.differed_runs,
                        runs: run.repeat,
                    })
                )
            );
        }
    }

    let total = run.subtests().count();
    let exported = run.subtests().filter(|(_, s)| s.browser.is_some()).count();
    let ran = run
        .subtests()
        .filter(|(_, s)| {
            s.browser
                .as_ref()
                .is_some_and(|b| b.status != "MISSING" && b.status != "NOTRUN")
        })
        .count();
    let agree = run
        .subtests()
        .filter(|(_, s)| s.verdict == Verdict::Agree)
        .count();
    let differ = run
        .subtests()
        .filter(|(_, s)| s.verdict == Verdict::Differ)
        .count();
    let known = run
        .subtests()
        .filter(|(_, s)| s.verdict == Verdict::Differ && s.known.is_some())
        .count();
    // The summary names them again, so that the end of a long report says what to look at.
    for (heading, list) in [
        (
            "Unexplained disagreements (add them to the known differences, or fix the engine):",
            &failing,
        ),
        (
            "Unexplained disagreements that did not show again when their file was rerun:",
            &unreproduced,
        ),
    ] {
        if !list.is_empty() {
            let _ = writeln!(out, "\n{heading}");
            for (f, s) in list {
                let _ = writeln!(
                    out,
                    "    {} :: \"{}\" (line {}): {}",
                    f.test_path,
                    s.name,
                    s.line,
                    s.difference
                        .as_deref()
                        .unwrap_or_default()
                        .lines()
                        .next()
                        .unwrap_or_default()
                );
            }
        }
    }
    let _ = writeln!(
        out,
        "\n{} files, {total} subtests: {exported} exported, {ran} ran in Chromium; {agree} agree, {differ} differ ({known} known, {} unexplained{}); {} stale known differences.",
        run.files.len(),
        failing.len(),
        if unreproduced.is_empty() {
            String::new()
        } else {
            format!(", {} did not reproduce", unreproduced.len())
        },
        run.stale.len()
    );
    let _ = writeln!(out, "wall time {:.1} s", run.seconds);
    let _ = writeln!(
        out,
        "{}",
        if run.passed() {
            if unreproduced.is_empty() {
                "Every disagreement is a known difference."
            } else {
                "Every disagreement that reproduced is a known difference."
            }
        } else {
            "FAILED: a disagreement is unexplained or a known difference is stale."
        }
    );
    out
}

fn details(out: &mut String, f: &FileDiff, s: &SubtestDiff) {
    let _ = writeln!(out, "\n{} :: {:?} (line {})", f.test_path, s.name, s.line);
    if let Some(d) = &s.difference {
        for line in d.lines() {
            let _ = writeln!(out, "    {line}");
        }
    }
    if let Some(b) = &s.browser {
        let passed = b.checks.iter().filter(|c| c.passed).count();
        let _ = writeln!(
            out,
            "    chromium: {passed} of {} expectations held",
            b.checks.len()
        );
        for c in b.checks.iter().filter(|c| !c.passed) {
            let _ = writeln!(
                out,
                "    chromium: line {}: {}{}\n        {}",
                c.line,
                c.text,
                if c.sometimes { " (sometimes)" } else { "" },
                c.message
            );
        }
        for u in &b.uncaught {
            let _ = writeln!(
                out,
                "    chromium: uncaught {}{}",
                u.text,
                if u.realm.is_empty() {
                    String::new()
                } else {
                    format!(" in a script of {}", u.realm)
                }
            );
        }
        if b.checks.iter().all(|c| c.passed) && b.uncaught.is_empty() {
            if let Some(m) = &b.message {
                let _ = writeln!(out, "    chromium: {}", m.replace('\n', "\n        "));
            }
        }
    }
    for m in &s.engine.messages {
        let _ = writeln!(out, "    engine: {m}");
    }
    if !s.left_out.is_empty() {
        let kinds: Vec<String> = s
            .left_out
            .iter()
            .filter(|l| l.kind != "after")
            .map(|l| format!("{} (line {})", l.kind, l.line))
            .collect();
        let _ = writeln!(out, "    exported without: {}", kinds.join(", "));
    }
    match &s.known {
        Some(k) => {
            let _ = writeln!(out, "    known difference: {} is right: {}", k.right, k.why);
        }
        None if s.did_not_reproduce() => {
            let reruns = s.confirmation.map_or(0, |c| c.reruns);
            let _ = writeln!(
                out,
                "    not in the known differences, and it did not show again in {reruns} more run{} of the file",
                if reruns == 1 { "" } else { "s" }
            );
        }
        None if s.verdict == Verdict::Differ => {
            let _ = writeln!(out, "    UNEXPLAINED: not in the known differences");
        }
        None => {}
    }
    let browser_log: Vec<String> = s
        .browser
        .as_ref()
        .map(|b| b.log.clone())
        .unwrap_or_default();
    let engine_log = &s.engine.log;
    if engine_log.is_empty() && browser_log.is_empty() {
        let _ = writeln!(out, "    log: empty on both sides");
        return;
    }
    let width = engine_log
        .iter()
        .map(|l| l.chars().count())
        .max()
        .unwrap_or(0)
        .clamp(25, 60);
    let _ = writeln!(
        out,
        "    log{}:\n      {:<width$} | chromium",
        if s.log_comparable {
            ""
        } else {
            " (not compared: the export left out lines that change the world)"
        },
        "engine (default schedule)"
    );
    for i in 0..engine_log.len().max(browser_log.len()) {
        let e = engine_log.get(i).map(String::as_str).unwrap_or("");
        let b = browser_log.get(i).map(String::as_str).unwrap_or("");
        let mark = if e == b { " " } else { "≠" };
        let _ = writeln!(out, "    {mark} {} | {b}", cut(e, width));
    }
}

/// The version number of a browser's version line (`Chromium 156.0.8078.114 built on
/// Debian...` gives `156.0.8078.114`), or the line when it has none.
fn browser_version(line: &str) -> String {
    line.split_whitespace()
        .find(|w| w.chars().next().is_some_and(|c| c.is_ascii_digit()) && w.contains('.'))
        .unwrap_or(line)
        .to_string()
}

fn wptreport(run: &DiffRun) -> serde_json::Value {
    let results: Vec<serde_json::Value> = run
        .files
        .iter()
        .filter(|f| f.harness != "NOT RUN")
        .map(|f| {
            let subtests: Vec<serde_json::Value> = f
                .subtests
                .iter()
                .filter_map(|s| {
                    let b = s.browser.as_ref()?;
                    Some(json!({
                        "name": s.exported_name,
                        "status": if b.status == "MISSING" { "NOTRUN" } else { b.status.as_str() },
                        "message": b.message,
                        // What the engine expects of the same subtest under the profile.
                        "expected": if s.engine.status == "PASS" { "PASS" } else { "FAIL" },
                    }))
                })
                .collect();
            let status = match f.harness.as_str() {
                "KILLED" => "TIMEOUT",
                other => other,
            };
            json!({
                "test": format!("/{}", f.test_path),
                "subsuite": "",
                "status": status,
                "message": f.message,
                "duration": (f.seconds * 1000.0).round() as u64,
                "subtests": subtests,
            })
        })
        .collect();
    // What wpt.fyi's results processor requires: the times, and run_info's product,
    // browser_version, os and revision (the WPT tree's commit). Every value is a string or
    // a boolean, as wptrunner's updater hashes them.
    json!({
        "time_start": run.time_start,
        "time_end": run.time_end,
        "run_info": {
            "product": "chromium",
            "browser_version": browser_version(&run.browser),
            "browser_flags": "--enable-features=WebMCP",
            "os": std::env::consts::OS,
            "processor": std::env::consts::ARCH,
            "headless": true,
            "debug": false,
            "revision": run.revision,
            "spec_revision": crate::webmcp::TEXT_COMMIT,
            "webmcp_ref_profile": run.profile,
            "webmcp_ref_version": env!("CARGO_PKG_VERSION"),
        },
        "results": results,
    })
}
