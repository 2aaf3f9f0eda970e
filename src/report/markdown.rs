//! A Markdown report of one subtest, to paste into a spec issue (`trace --format markdown`):
//! the scenario's lines, a table of the outcome under each profile, a mermaid
//! `sequenceDiagram` of the run (GitHub renders it), the command that replays it, and the
//! exported WPT test, collapsed.
//!
//! The diagram has a participant per lane of the timeline (the harness, each event loop, each
//! parallel queue, timers). Each unit of work is a message to its lane from the lane of the
//! unit that made it runnable (queued it, set its timer, woke its queue), labelled with its
//! kind and what it was; a note over the lane lists the algorithm steps it ran. Changes of
//! tools-ready, promises settling, observations ending and expectations checked are notes too.

use std::fmt::Write as _;

use super::timeline::{Item, Timeline};
use crate::engine::trace::Lane;
use crate::scenario::SubtestResult;

/// What the report needs besides the runs.
pub struct Report<'a> {
    /// The scenario file's path as the replay command names it.
    pub path: &'a str,
    /// The subtest's lines as written (from its `subtest` line to the next subtest).
    pub source: &'a str,
    /// The file's title.
    pub title: &'a str,
    /// The command that prints this report again; the command that shows its trace.
    pub replay: &'a str,
    pub trace: &'a str,
    /// The exported WPT test and its path, when the subtest can be exported.
    pub exported: Option<(&'a str, &'a str)>,
    /// A sentence or two said before the rest (the finding the report is about).
    pub intro: Option<&'a str>,
    /// The playground link that opens this scenario, profiles and subtest (see
    /// [`super::link`]).
    pub link: Option<&'a str>,
}

/// A subtest's lines in its file's text: from its `subtest "NAME"` line (1-based `line`) up
/// to the next subtest, without the blank and comment lines that end it.
pub fn subtest_source(text: &str, line: u32) -> String {
    let lines: Vec<&str> = text.lines().collect();
    let start = (line as usize).saturating_sub(1);
    let mut end = start + 1;
    while end < lines.len() && !lines[end].starts_with("subtest ") {
        end += 1;
    }
    while end > start + 1 && {
        let l = lines[end - 1].trim();
        l.is_empty() || l.starts_with('#')
    } {
        end -= 1;
    }
    lines.get(start..end).unwrap_or(&[]).join("\n")
}

/// A participant's name in the diagram: letters, digits and `_` only.
fn participant_id(i: usize, lane: &Lane) -> String {
    let base = match lane {
        Lane::Harness => "harness".to_string(),
        Lane::EventLoop(l) => format!("loop_{l}"),
        Lane::ParallelQueue(q) => format!("queue_{q}"),
        Lane::Timers => "timers".to_string(),
    };
    let mut id: String = base
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .collect();
    while id.contains("__") {
        id = id.replace("__", "_");
    }
    format!("L{i}_{}", id.trim_matches('_'))
}

/// A participant's label, as mermaid shows it.
fn participant_label(lane: &Lane) -> String {
    match lane {
        Lane::Harness => "harness".into(),
        Lane::EventLoop(l) => format!("event loop {l}"),
        Lane::ParallelQueue(q) => q.clone(),
        Lane::Timers => "timers".into(),
    }
}

/// Text inside a mermaid message or note, on one line: `#` and `;` (which would end the
/// message) as mermaid's entity codes `#35;` and `#59;`, angle brackets as entity codes too,
/// long texts cut.
fn text(s: &str) -> String {
    let s: String = s.split_whitespace().collect::<Vec<_>>().join(" ");
    let s = if s.chars().count() > 110 {
        let cut: String = s.chars().take(108).collect();
        format!("{cut}…")
    } else {
        s
    };
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '#' => out.push_str("#35;"),
            ';' => out.push_str("#59;"),
            '<' => out.push_str("#60;"),
            '>' => out.push_str("#62;"),
            c => out.push(c),
        }
    }
    out
}

/// A text of the diagram as mermaid shows it: its entity codes decoded.
pub fn decode(s: &str) -> String {
    s.replace("#35;", "#")
        .replace("#59;", ";")
        .replace("#60;", "<")
        .replace("#62;", ">")
}

/// The mermaid `sequenceDiagram` of a run.
pub fn sequence_diagram(t: &Timeline) -> String {
    let mut out = String::from("sequenceDiagram\n");
    let ids: Vec<String> = t
        .lanes
        .iter()
        .enumerate()
        .map(|(i, l)| participant_id(i, l))
        .collect();
    for (i, lane) in t.lanes.iter().enumerate() {
        let _ = writeln!(
            out,
            "    participant {} as {}",
            ids[i],
            text(&participant_label(lane))
        );
    }
    let mut last_time: Option<u64> = None;
    for u in &t.units {
        let time = t.slots[u.slot];
        if last_time.is_some_and(|l| l != time) || (last_time.is_none() && time > 0) {
            let _ = writeln!(
                out,
                "    Note over {},{}: {time} ms",
                ids[0],
                ids[ids.len() - 1]
            );
        }
        last_time = Some(time);
        let lane = &ids[u.lane];
        if u.number.is_some() {
            let from = u.cause.map(|c| &ids[t.units[c].lane]).unwrap_or(lane);
            let what = u.what.split_once(": ").map(|(_, w)| w).unwrap_or(&u.what);
            let _ = writeln!(
                out,
                "    {from}->>{lane}: #35;{} {} {}",
                u.number.unwrap_or(0),
                text(&u.kind),
                text(what)
            );
            if !u.steps.is_empty() {
                let _ = writeln!(out, "    Note over {lane}: {}", text(&u.steps.join(", ")));
            }
        }
        for item in &u.items {
            match item {
                Item::Action(action) => {
                    let _ = writeln!(out, "    Note over {lane}: {}", text(action));
                }
                Item::Check(i) => {
                    if let Some(c) = t.checks.get(*i) {
                        let _ = writeln!(
                            out,
                            "    Note over {}: line {} {} {}",
                            ids[0],
                            c.line,
                            if c.passed { "holds:" } else { "FAILS:" },
                            text(&c.text)
                        );
                    }
                }
            }
        }
        for d in &t.documents {
            for (si, s) in d.segments.iter().enumerate() {
                if s.from == u.slot && si > 0 {
                    let prev = &d.segments[si - 1];
                    let what = if prev.active != s.active {
                        if s.active {
                            format!("{} fully active again", d.name)
                        } else {
                            format!("{} no longer fully active", d.name)
                        }
                    } else {
                        format!("{} tools-ready {}", d.name, s.ready)
                    };
                    let _ = writeln!(out, "    Note over {}: {}", ids[d.lane], text(&what));
                }
            }
        }
        for s in t.settles.iter().filter(|s| s.slot == u.slot) {
            let _ = writeln!(
                out,
                "    Note over {}: {} {}",
                ids[s.lane],
                text(&s.promise),
                if s.fulfilled { "fulfilled" } else { "rejected" }
            );
        }
        for s in t.spans.iter().filter(|s| s.to == Some(u.slot)) {
            let _ = writeln!(
                out,
                "    Note over {}: {} ended: {}",
                ids[s.lane],
                text(&s.label),
                text(s.outcome.as_deref().unwrap_or(""))
            );
        }
        for (_, f) in t.findings.iter().filter(|(slot, _)| *slot == u.slot) {
            let _ = writeln!(out, "    Note over {lane}: FINDING {}", text(f));
        }
    }
    out
}

/// The report of one subtest under each profile of `runs` (the first is the one diagrammed).
pub fn report(r: &Report, runs: &[(String, &SubtestResult)]) -> String {
    let mut out = String::new();
    let Some((first_profile, first)) = runs.first() else {
        return out;
    };
    use crate::text::escape::{
        cut, html, markdown_cell_code, markdown_code, markdown_fence, markdown_inline,
        READABLE_CHARS,
    };
    // What the scenario names (its subtest, title, path, values) is escaped, so that it cannot
    // end a heading, a table row or a block.
    let _ = writeln!(out, "# {}\n", markdown_inline(&first.name));
    let _ = writeln!(
        out,
        "{}, line {}: {}\n",
        markdown_code(r.path),
        first.line,
        markdown_inline(r.title)
    );
    if let Some(intro) = r.intro {
        let _ = writeln!(out, "{}\n", intro.trim());
    }
    let _ = writeln!(
        out,
        "## The scenario\n\n{}\n",
        markdown_fence("text", r.source)
    );

    let _ = writeln!(out, "## The outcome under each profile\n");
    let outcomes: Vec<&[(String, String)]> =
        runs.iter().map(|(_, s)| s.outcome.as_slice()).collect();
    let cell = |s: &str| markdown_inline(s);
    let mut any_differs = false;
    let _ = write!(out, "| |");
    for (p, _) in runs {
        let _ = write!(out, " `{p}` |");
    }
    let _ = write!(out, "\n|---|");
    for _ in runs {
        out.push_str("---|");
    }
    let _ = write!(out, "\n| result |");
    for (_, s) in runs {
        let _ = write!(out, " {} |", s.status.name());
    }
    out.push('\n');
    for (k, vals, differs) in super::outcome_rows(&outcomes) {
        any_differs |= differs;
        let key = if differs {
            format!("**{}**", cell(&k))
        } else {
            cell(&k)
        };
        let _ = write!(out, "| {key} |");
        for v in vals {
            let _ = write!(out, " {} |", markdown_cell_code(&v));
        }
        out.push('\n');
    }
    if runs.len() > 1 {
        out.push_str(if any_differs {
            "\nValues in bold differ between the profiles.\n"
        } else {
            "\nThe profiles agree on every value.\n"
        });
    }
    let failed: Vec<String> = runs
        .iter()
        .flat_map(|(p, s)| {
            s.expectations
                .iter()
                .filter(|e| !e.passed && !e.sometimes)
                .map(move |e| {
                    format!(
                        "- `{p}`, line {}: {}: expected {}, got {}",
                        e.line,
                        markdown_code(&e.text),
                        markdown_code(&cut(&e.expected, READABLE_CHARS)),
                        markdown_code(&cut(&e.actual, READABLE_CHARS))
                    )
                })
        })
        .collect();
    if !failed.is_empty() {
        let _ = writeln!(out, "\nExpectations that fail:\n\n{}", failed.join("\n"));
    }
    let findings: Vec<String> = runs
        .iter()
        .flat_map(|(p, s)| {
            s.findings
                .iter()
                .map(move |f| format!("- `{p}`: {}", markdown_inline(&f.to_string())))
        })
        .collect();
    if !findings.is_empty() {
        let _ = writeln!(
            out,
            "\nFindings (the text cannot be carried out, or an assertion fails):\n\n{}",
            findings.join("\n")
        );
    }

    let _ = writeln!(
        out,
        "\n## The run under `{first_profile}`, step by step\n\nEach arrow is a unit of work, drawn from the lane that made it runnable; the notes are the algorithm steps it ran and what changed.\n\n```mermaid\n{}```\n",
        sequence_diagram(&Timeline::of(first))
    );
    let _ = writeln!(
        out,
        "## To replay it\n\n{}\n",
        markdown_fence("sh", &format!("{}\n{}", r.trace, r.replay))
    );
    if let Some(link) = r.link {
        let _ = writeln!(
            out,
            "Or change it and run it again in a page: [the scenario in the playground]({link}) (served by `webmcp-ref playground --serve`).\n"
        );
    }
    match r.exported {
        Some((path, test)) => {
            let _ = writeln!(
                out,
                "<details>\n<summary>The exported WPT test (<code>{}</code>, from <code>webmcp-ref export-wpt</code> under <code>{first_profile}</code>)</summary>\n\n{}\n\n</details>",
                html(path),
                markdown_fence("html", test)
            );
        }
        None => {
            out.push_str("No WPT test: nothing of this subtest is something a page can check.\n");
        }
    }
    out
}
