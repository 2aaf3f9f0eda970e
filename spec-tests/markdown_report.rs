//! The Markdown report of a subtest (`trace --format markdown`) and its timeline
//! (`report::timeline`): each scenario of spec-tests/golden/markdown/ gives the checked-in `.md`
//! beside it, byte for byte (after a deliberate change, `UPDATE_GOLDEN=1 cargo test --test
//! spec-tests -- markdown_report::` rewrites them; review the diff); the report's mermaid
//! diagram, parsed, has a participant per lane and a message per unit of the trace, from the
//! lane that made the unit runnable; the findings' reports in docs/findings/ are current.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use webmcp_ref::engine::trace::{Lane, Mark, TraceEntry};
#[allow(unused_imports)]
use webmcp_ref::prelude::*;
use webmcp_ref::report::link::Link;
use webmcp_ref::report::markdown::{decode, sequence_diagram};
use webmcp_ref::report::timeline::Timeline;
use webmcp_ref::scenario::{parse_file, run_file, RunOptions, SubtestResult};
use webmcp_ref::Profile;
use crate::common::webmcp_ref;

fn golden_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("spec-tests/golden/markdown")
}

/// Each golden scenario, with the subtest and profiles its report is made for.
const GOLDEN: &[(&str, &str, &str)] = &[
    ("removed-iframe", "iframe removed in the same task", "spec,chromium-pr373"),
    (
        "cross-origin-race",
        "the observation waits for the iframe's settle",
        "spec",
    ),
];

#[test]
fn each_golden_scenario_reports_as_its_markdown_file() {
    let update = std::env::var_os("UPDATE_GOLDEN").is_some();
    let mut failures = Vec::new();
    for (name, subtest, profiles) in GOLDEN {
        let file = format!("spec-tests/golden/markdown/{name}.scn");
        let (code, out, err) = webmcp_ref(&[
            "trace",
            &file,
            "--subtest",
            subtest,
            "--profile",
            profiles,
            "--format",
            "markdown",
        ]);
        assert_eq!(code, 0, "{err}");
        let golden = golden_dir().join(format!("{name}.md"));
        if update {
            std::fs::write(&golden, &out).unwrap();
            continue;
        }
        let expected = std::fs::read_to_string(&golden).unwrap_or_default();
        if expected != out {
            let first = expected
                .lines()
                .zip(out.lines())
                .position(|(a, b)| a != b)
                .unwrap_or_else(|| expected.lines().count().min(out.lines().count()));
            failures.push(format!(
                "{}: differs at line {}:\n  golden: {}\n  now:    {}",
                golden.display(),
                first + 1,
                expected.lines().nth(first).unwrap_or("(end)"),
                out.lines().nth(first).unwrap_or("(end)")
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "{}\n(UPDATE_GOLDEN=1 cargo test --test spec-tests -- markdown_report:: rewrites them)",
        failures.join("\n")
    );
}

#[test]
fn the_report_has_the_scenario_the_outcomes_the_replay_and_the_exported_test() {
    let md = std::fs::read_to_string(golden_dir().join("removed-iframe.md")).unwrap();
    // The subtest's own lines, not the next subtest's.
    assert!(md.contains("```text\nsubtest \"iframe removed in the same task\"\n"));
    assert!(!md.contains("a later subtest the report leaves out\"\n  page"));
    // The outcome under each profile, the differing ones in bold.
    assert!(md.contains("| | `spec` | `chromium-pr373` |"), "{md}");
    assert!(md.contains("| **top.toolsReady** | `false` | `true` |"), "{md}");
    assert!(md.contains("```mermaid\nsequenceDiagram\n"));
    assert!(md.contains("webmcp-ref trace spec-tests/golden/markdown/removed-iframe.scn --subtest \"iframe removed in the same task\" --profile spec,chromium-pr373 --format markdown"));
    // The exported test of this subtest alone, collapsed, named by its WPT path.
    assert!(md.contains(
        "<details>\n<summary>The exported WPT test (<code>webmcp/webmcp-ref/removed-iframe.tentative.https.html</code>"
    ));
    assert!(md.contains("promise_test(async t => {"));
    assert!(!md.contains("a later subtest the report leaves out\");"));
}

/// The report's playground link opens the scenario as run: its whole text, the profiles and
/// switches, the subtest, and its timeline; `--playground` names where the playground is.
#[test]
fn the_report_links_to_the_scenario_in_the_playground() {
    let file = "spec-tests/golden/markdown/removed-iframe.scn";
    let (status, md, err) = webmcp_ref(&[
        "trace",
        file,
        "--subtest",
        "iframe removed in the same task",
        "--profile",
        "spec,chromium-pr373",
        "--set",
        "registry-toolchange=per-call",
        "--playground",
        "https://playground.example/webmcp/",
        "--format",
        "markdown",
    ]);
    assert_eq!(status, 0, "{err}");
    let start = md
        .find("(https://playground.example/webmcp/#")
        .expect("the link")
        + 1;
    let end = start + md[start..].find(')').unwrap();
    let link = Link::parse(&md[start..end], 1 << 20).unwrap();
    let text = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join(file)).unwrap();
    assert_eq!(link.text, text);
    assert_eq!(link.path, file);
    assert_eq!(link.profiles, ["spec", "chromium-pr373"]);
    assert_eq!(link.sets, ["registry-toolchange=per-call"]);
    assert_eq!(link.subtest.as_deref(), Some("iframe removed in the same task"));
    assert_eq!(link.view.as_deref(), Some("timeline"));
}

/// A mermaid sequence diagram, as far as the report writes one.
#[derive(Debug, Default)]
struct Diagram {
    participants: Vec<(String, String)>,
    messages: Vec<(String, String, String)>,
    notes: Vec<(Vec<String>, String)>,
}

fn parse_mermaid(text: &str) -> Diagram {
    let mut d = Diagram::default();
    let mut lines = text.lines();
    assert_eq!(lines.next(), Some("sequenceDiagram"));
    for line in lines {
        let l = line.trim();
        if let Some(rest) = l.strip_prefix("participant ") {
            let (id, label) = rest.split_once(" as ").expect("participant ID as LABEL");
            assert!(
                id.chars().all(|c| c.is_ascii_alphanumeric() || c == '_'),
                "{id}"
            );
            d.participants.push((id.into(), decode(label)));
        } else if let Some(rest) = l.strip_prefix("Note over ") {
            let (who, text) = rest.split_once(": ").expect("Note over A: text");
            d.notes
                .push((who.split(',').map(String::from).collect(), decode(text)));
        } else if let Some((arrow, text)) = l.split_once(": ") {
            let (from, to) = arrow.split_once("->>").expect("A->>B: text");
            d.messages.push((from.into(), to.into(), decode(text)));
        } else {
            panic!("not a line of the diagram: {line:?}");
        }
        // A message's text ends at a `;` or a `#` that is not an entity code.
        let raw = l.split_once(": ").map(|(_, t)| t).unwrap_or("");
        let stripped = raw
            .replace("#35;", "")
            .replace("#59;", "")
            .replace("#60;", "")
            .replace("#62;", "");
        assert!(
            !stripped.contains(';') && !stripped.contains('#'),
            "{line:?}"
        );
    }
    d
}

fn mermaid_of(md: &str) -> &str {
    let start = md.find("```mermaid\n").expect("a mermaid block") + "```mermaid\n".len();
    let end = start + md[start..].find("```").expect("its end");
    &md[start..end]
}

fn lane_label(lane: &Lane) -> String {
    match lane {
        Lane::Harness => "harness".into(),
        Lane::EventLoop(l) => format!("event loop {l}"),
        Lane::ParallelQueue(q) => q.clone(),
        Lane::Timers => "timers".into(),
    }
}

/// The diagram of a run, checked against its trace: a participant per lane a unit ran on (and
/// the harness, and each document's event loop); for each unit, in order, one message to its lane, numbered and labelled as
/// the trace has it, from the lane of the entry that was running when the unit became
/// runnable.
fn assert_diagram_matches_trace(sub: &SubtestResult, diagram: &Diagram) {
    let label_of = |id: &str| {
        diagram
            .participants
            .iter()
            .find(|(i, _)| i == id)
            .map(|(_, l)| l.clone())
            .unwrap_or_else(|| panic!("{id} is not a participant"))
    };
    // Every lane once.
    let mut lanes: BTreeSet<String> = BTreeSet::from(["harness".to_string()]);
    let mut units = Vec::new();
    // (last sequence number before the entry, the entry's lane) for each unit and harness action.
    let mut began: Vec<(u64, String)> = Vec::new();
    for e in &sub.trace {
        match e {
            TraceEntry::Unit {
                unit, what, place, ..
            } => {
                let lane = lane_label(&place.lane);
                lanes.insert(lane.clone());
                let from = began
                    .iter()
                    .rev()
                    .find(|(seq, _)| *seq < place.queued)
                    .map(|(_, l)| l.clone())
                    .unwrap_or_else(|| lane.clone());
                units.push((*unit, place.kind.label(), what.clone(), from, lane.clone()));
                began.push((place.seq, lane));
            }
            // An action of a unit's own script is the unit's.
            TraceEntry::Harness {
                seq, within: false, ..
            } => began.push((*seq, "harness".into())),
            // A document's event loop is a lane even when none of its units ran.
            TraceEntry::Mark {
                mark: Mark::Document { event_loop, .. },
                ..
            } => {
                lanes.insert(format!("event loop {event_loop}"));
            }
            _ => {}
        }
    }
    let declared: BTreeSet<String> = diagram.participants.iter().map(|(_, l)| l.clone()).collect();
    assert_eq!(declared, lanes, "participants");
    assert_eq!(diagram.participants.len(), lanes.len(), "each lane once");
    assert_eq!(diagram.messages.len(), units.len(), "a message per unit");
    for ((from, to, text), (n, kind, what, want_from, want_to)) in
        diagram.messages.iter().zip(&units)
    {
        assert_eq!(label_of(to), *want_to, "unit #{n}: {text}");
        assert_eq!(label_of(from), *want_from, "unit #{n}'s cause: {text}");
        let prefix = format!("#{n} {kind} ");
        assert!(text.starts_with(&prefix), "{text:?} starts with {prefix:?}");
        // The description, less the kind and lane the arrow already says.
        let rest = what.split_once(": ").map(|(_, r)| r).unwrap_or(what);
        let shown = text.trim_start_matches(&prefix).trim_end_matches('…');
        assert!(rest.starts_with(shown), "{text:?} describes {what:?}");
    }
    for (who, text) in &diagram.notes {
        for w in who {
            label_of(w);
        }
        assert!(!text.is_empty());
    }
}

fn traced(file: &str, subtest: &str, profile: &str) -> SubtestResult {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(file);
    let scenario = parse_file(file, &std::fs::read_to_string(path).unwrap()).unwrap();
    let r = run_file(
        &scenario,
        &RunOptions {
            profile: Profile::named(profile).unwrap(),
            trace: true,
            subtest: Some(subtest.into()),
            ..RunOptions::default()
        },
    );
    r.subtests.into_iter().next().expect("the subtest ran")
}

#[test]
fn the_diagram_of_each_golden_report_matches_its_trace() {
    for (name, subtest, profiles) in GOLDEN {
        let file = format!("spec-tests/golden/markdown/{name}.scn");
        let md = std::fs::read_to_string(golden_dir().join(format!("{name}.md"))).unwrap();
        let first = profiles.split(',').next().unwrap();
        let sub = traced(&file, subtest, first);
        let diagram = parse_mermaid(mermaid_of(&md));
        assert_diagram_matches_trace(&sub, &diagram);
        // The report's diagram is the one the library draws for that run.
        assert_eq!(mermaid_of(&md), sequence_diagram(&Timeline::of(&sub)));
    }
}

#[test]
fn the_diagram_of_every_finding_matches_its_trace() {
    let list = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/findings/findings.txt"),
    )
    .unwrap();
    let mut n = 0;
    for block in list.split("\nfinding ").skip(1) {
        let name = block.lines().next().unwrap().trim();
        let get = |key: &str| {
            block
                .lines()
                .find_map(|l| l.trim().strip_prefix(&format!("{key}: ")))
                .map(str::to_string)
        };
        let md = std::fs::read_to_string(
            Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("docs/findings/{name}.md")),
        )
        .unwrap();
        let diagram = parse_mermaid(mermaid_of(&md));
        // Runs with a schedule or switches of their own are checked by their golden file.
        if get("schedule").is_none() && get("set").is_none() {
            let profile = get("profiles").unwrap();
            let sub = traced(
                &get("file").unwrap(),
                &get("subtest").unwrap(),
                profile.split(',').next().unwrap().trim(),
            );
            assert_diagram_matches_trace(&sub, &diagram);
        }
        n += 1;
    }
    assert!(n >= 15, "one report per finding of the README: {n}");
}

#[test]
fn the_findings_reports_are_current() {
    let (code, out, err) = webmcp_ref(&["findings", "--check"]);
    assert_eq!(code, 0, "{out}{err}\n(`webmcp-ref findings` writes them anew)");
}

#[test]
fn a_timeline_has_a_lane_per_event_loop_and_queue_and_each_documents_tools_ready() {
    let sub = traced(
        "spec-tests/golden/markdown/cross-origin-race.scn",
        "the observation waits",
        "spec",
    );
    let t = Timeline::of(&sub);
    let titles: Vec<String> = t.lanes.iter().map(Lane::title).collect();
    assert_eq!(titles[0], "harness");
    assert!(titles.contains(&"event loop top https://a.test".to_string()), "{titles:?}");
    assert!(titles.contains(&"event loop top https://b.test".to_string()), "{titles:?}");
    assert!(titles.contains(&"parallel queue: AI agent queue".to_string()), "{titles:?}");
    assert_eq!(titles.last().map(String::as_str), Some("timers"));
    // One box per unit of the trace, each in the slot of its own, in order.
    let units: Vec<u64> = t.units.iter().filter_map(|u| u.number).collect();
    assert_eq!(units, (1..=sub.units).collect::<Vec<_>>());
    // The child's tools-ready: true, false from its task, true again at 100 ms.
    let child = t.documents.iter().find(|d| d.name == "child").unwrap();
    let states: Vec<bool> = child.segments.iter().map(|s| s.ready).collect();
    assert_eq!(states, [true, false, true]);
    assert_eq!(t.slots[child.segments[2].from], 100);
    // The observation, from its start to its outcome.
    let o = t.spans.iter().find(|s| s.label == "observation o").unwrap();
    assert_eq!(o.outcome.as_deref(), Some("ready after 100 ms"));
    assert_eq!(t.slots[o.to.unwrap()], 100);
    // The promise settling, and the expectations where they were checked, after the run.
    assert!(t.settles.iter().any(|s| s.promise == "p" && s.fulfilled));
    assert_eq!(t.checks.len(), 3);
    assert!(t.checks.iter().all(|c| c.passed && c.slot == t.slots.len() - 1));
}
