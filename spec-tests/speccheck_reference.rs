//! Tests on the two reference snapshots of the WebMCP text.
//!
//! The texts are not in the repository (the project keeps the spec's facts, never its
//! sentences), so these tests are ignored by a plain `cargo test`: `.ci/run` runs them with
//! `--ignored` where the texts are at hand. The files are looked up in
//! `$SPECCHECK_REFERENCE_DIR`, else in `shared/reference` beside the checkout; once asked to
//! run, a missing file fails the test.

use std::path::PathBuf;

use webmcp_ref::speccheck::{
    compare, parse_bs, Digest, EngineAlgorithm, Finding, Origin, Spec, StepKind, StepNumber,
};

const NEW: &str = "webmcp-index-0023abda.bs";
const OLD: &str = "webmcp-index.bs";

fn reference(name: &str) -> String {
    let manifest = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let mut dirs: Vec<PathBuf> = Vec::new();
    if let Ok(dir) = std::env::var("SPECCHECK_REFERENCE_DIR") {
        dirs.push(dir.into());
    }
    dirs.extend(
        manifest
            .ancestors()
            .map(|a| a.join("shared").join("reference")),
    );
    for dir in &dirs {
        if let Ok(text) = std::fs::read_to_string(dir.join(name)) {
            return text;
        }
    }
    panic!("{name} not found in {dirs:?}; set SPECCHECK_REFERENCE_DIR");
}

fn parse(name: &str) -> Spec {
    parse_bs(&reference(name)).unwrap_or_else(|e| panic!("{name}: {e}"))
}

fn steps(spec: &Spec, anchor: &str) -> Vec<String> {
    let a = spec
        .algorithm(anchor)
        .unwrap_or_else(|| panic!("no algorithm #{anchor}"));
    a.steps.iter().map(|s| s.number.to_string()).collect()
}

fn list(s: &str) -> Vec<String> {
    s.split_whitespace().map(String::from).collect()
}

fn n(s: &str) -> StepNumber {
    s.parse().unwrap()
}

#[test]
#[ignore = "needs the WebMCP texts: see the file's header"]
fn new_text_algorithms_in_document_order() {
    let spec = parse(NEW);
    let anchors: Vec<&str> = spec.algorithms.iter().map(|a| a.anchor.as_str()).collect();
    assert_eq!(
        anchors,
        [
            "cancel-a-pending-tool-execution",
            "unloading-document-cleanup-steps",
            "notify-documents-of-a-tool-change",
            "tool-is-exposed-to-an-origin",
            "tool-execute-steps",
            "imperative-execute-steps",
            "model-context-unregister-a-tool",
            "dom-document-modelcontext",
            "dom-modelcontext-registertool",
            "dom-modelcontext-gettools",
            "dom-modelcontext-executetool",
            "synthesize-a-declarative-json-schema-object-algorithm",
            "declarative-execute-steps",
            "perform-an-observation",
        ]
    );
    assert!(spec
        .algorithms
        .iter()
        .all(|a| a.wrapped && a.parent.is_none()));
}

#[test]
#[ignore = "needs the WebMCP texts: see the file's header"]
fn new_text_step_lists() {
    let spec = parse(NEW);
    let expect = [
        (
            "cancel-a-pending-tool-execution",
            "1 2 3 4 5 6 6.1 6.2 6.3 6.4 6.5 6.6",
        ),
        (
            "unloading-document-cleanup-steps",
            "1 2 2.1 2.2 2.2.1 2.3 2.3.1 2.3.2 2.3.3 2.3.4 2.3.5",
        ),
        ("notify-documents-of-a-tool-change", "1 2 3 3.1 3.2 3.3"),
        ("tool-is-exposed-to-an-origin", "1 2 2.1 3"),
        ("tool-execute-steps", "1 2 3 4 5"),
        (
            "imperative-execute-steps",
            "1 2 3 4 5 6 7 8 9 10 10.1 10.1.1 10.1.2 10.1.3 10.1.4 10.1.5 10.2 10.2.1 10.2.2 10.2.3 10.2.4 10.2.5",
        ),
        ("model-context-unregister-a-tool", "1 2 3 4 5 6 7"),
        ("dom-document-modelcontext", "1"),
        (
            "dom-modelcontext-registertool",
            "1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 15.1 15.1.1 15.1.2 15.1.3 16 17 17.1 17.2 17.3 17.3.1 17.3.2 \
             18 19 20 20.1 20.2 21",
        ),
        (
            "dom-modelcontext-gettools",
            "1 2 3 4 5 6 6.1 6.1.1 6.1.2 6.1.3 7 8 8.1 8.2 8.3 8.3.1 8.3.2 8.3.3 8.3.4 8.3.5 8.3.6 8.3.7 8.3.8 \
             8.3.8.1 8.3.8.2 8.3.8.3 8.4 8.5 9",
        ),
        (
            "dom-modelcontext-executetool",
            "1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 15.1 15.2 15.3 15.4 15.4.1 15.4.2 16 16.1 16.2 16.3 16.4 16.5 \
             16.6 16.7 16.8 16.9 16.10 16.10.1 16.10.2 16.10.3 16.10.4 16.11 16.12 16.13 17",
        ),
        ("synthesize-a-declarative-json-schema-object-algorithm", "1"),
        ("declarative-execute-steps", ""),
        (
            "perform-an-observation",
            "1 2 3 4 5 5.1 5.2 5.3 5.4 5.5 6 7",
        ),
    ];
    for (anchor, want) in expect {
        assert_eq!(steps(&spec, anchor), list(want), "#{anchor}");
    }
}

#[test]
#[ignore = "needs the WebMCP texts: see the file's header"]
fn new_text_step_details() {
    let spec = parse(NEW);
    let cleanup = spec.algorithm("unloading-document-cleanup-steps").unwrap();
    assert_eq!(
        cleanup.step(&n("2.3.2")).unwrap().ids,
        ["target-destroyed-cleanup"]
    );
    assert_eq!(
        cleanup.step(&n("2.3.3")).unwrap().ids,
        ["caller-destroyed-cleanup"]
    );

    // The two reactions to the tool's promise are bullets holding steps.
    let imperative = spec.algorithm("imperative-execute-steps").unwrap();
    for (step, kind) in [
        ("10", StepKind::Numbered),
        ("10.1", StepKind::Bullet),
        ("10.2", StepKind::Bullet),
        ("10.2.1", StepKind::Numbered),
    ] {
        assert_eq!(imperative.step(&n(step)).unwrap().kind, kind, "{step}");
    }

    // A definition list is part of its step; the issue inside it is not.
    let get_tools = spec.algorithm("dom-modelcontext-gettools").unwrap();
    let registered = &get_tools.step(&n("8.3.8.2")).unwrap().text;
    assert!(registered.contains("registeredTool") && registered.contains("annotations"));
    assert!(!registered.contains("Consider"));

    // Notes stay out of the step they follow.
    let execute = spec.algorithm("tool-execute-steps").unwrap();
    let step3 = &execute.step(&n("3")).unwrap().text;
    assert!(step3.contains("toolMap[toolName]"));
    assert!(!step3.contains("race") && !step3.contains("plumbing"));

    // Markup is rendered: no shorthand survives.
    for a in &spec.algorithms {
        for s in &a.steps {
            for marker in ["[=", "=]", "{{", "}}", "<var", "<code", "<p", "|"] {
                assert!(
                    !s.text.contains(marker),
                    "#{} {} has {marker:?}: {}",
                    a.anchor,
                    s.number,
                    s.text
                );
            }
        }
    }
    // The header carries the parameters.
    assert!(spec
        .algorithm("tool-is-exposed-to-an-origin")
        .unwrap()
        .header
        .contains("accessing origin"));
}

#[test]
#[ignore = "needs the WebMCP texts: see the file's header"]
fn new_text_issue_boxes() {
    let spec = parse(NEW);
    let found: Vec<(String, usize, String, Option<String>)> = spec
        .issues()
        .map(|(anchor, i)| {
            (
                anchor.to_string(),
                i.line,
                i.after_step.as_ref().map_or("-".into(), |s| s.to_string()),
                i.remote_id.clone(),
            )
        })
        .collect();
    let want: Vec<(String, usize, String, Option<String>)> = [
        ("tool-execute-steps", 423, "3", None),
        ("imperative-execute-steps", 482, "2", None),
        ("dom-modelcontext-gettools", 880, "8.3.8.2", Some("#224")),
        ("dom-modelcontext-executetool", 988, "16.1", Some("#227")),
        ("dom-modelcontext-executetool", 991, "16.1", None),
        ("dom-modelcontext-executetool", 1001, "16.4", None),
        ("dom-modelcontext-executetool", 1012, "16.7", None),
        ("dom-modelcontext-executetool", 1021, "16.9", None),
        ("declarative-execute-steps", 1325, "-", None),
    ]
    .into_iter()
    .map(|(a, l, s, id)| (a.to_string(), l, s.to_string(), id.map(String::from)))
    .collect();
    assert_eq!(found, want);
}

#[test]
#[ignore = "needs the WebMCP texts: see the file's header"]
fn old_text_parses() {
    let spec = parse(OLD);
    let anchors: Vec<&str> = spec.algorithms.iter().map(|a| a.anchor.as_str()).collect();
    assert_eq!(
        anchors,
        [
            "notify-documents-of-a-tool-change",
            "tool-is-visible-to-an-origin",
            "model-context-unregister-a-tool",
            "dom-document-modelcontext",
            "dom-modelcontext-registertool",
            "synthesize-a-declarative-json-schema-object-algorithm",
            "perform-an-observation",
        ]
    );
    assert_eq!(
        steps(&spec, "dom-modelcontext-registertool"),
        list(
            "1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 18.1 18.2 18.2.1 18.2.2 19 20 20.1 20.1.1 20.1.2 20.1.3 21 22 23 23.1 23.2 24"
        )
    );
    assert_eq!(
        steps(&spec, "model-context-unregister-a-tool"),
        list("1 2 3 4 5 6 6.1")
    );
    assert_eq!(
        steps(&spec, "perform-an-observation"),
        list("1 2 3 4 5 5.1 5.2 5.3 6 7")
    );
    assert_eq!(spec.issues().count(), 0);
}

/// An engine table that claims exactly the text's steps.
fn engine_matching(spec: &Spec) -> Vec<(String, Vec<String>)> {
    spec.algorithms
        .iter()
        .map(|a| {
            (
                a.anchor.clone(),
                a.steps.iter().map(|s| s.number.to_string()).collect(),
            )
        })
        .collect()
}

#[test]
#[ignore = "needs the WebMCP texts: see the file's header"]
fn old_digest_against_new_text() {
    let old = parse(OLD);
    let new = parse(NEW);
    let digest = Digest::from_spec(&old, "0b676d27");
    let table = engine_matching(&new);
    let labels: Vec<Vec<&str>> = table
        .iter()
        .map(|(_, s)| s.iter().map(String::as_str).collect())
        .collect();
    let engine: Vec<EngineAlgorithm> = table
        .iter()
        .zip(&labels)
        .map(|((anchor, _), steps)| EngineAlgorithm {
            anchor,
            origin: Origin::Text,
            steps,
        })
        .collect();
    let report = compare(&new, &engine, &digest);
    assert!(!report.is_clean());

    let register = report.findings("dom-modelcontext-registertool");
    let changed: Vec<String> = register
        .iter()
        .filter_map(|f| match f {
            Finding::StepChanged { step, .. } => Some(step.to_string()),
            _ => None,
        })
        .collect();
    assert!(!changed.is_empty(), "{report}");
    // Step 3 (fully active check) kept its wording; step 9 became the name
    // validity check that the old step 11 was.
    assert!(!changed.contains(&"3".to_string()));
    assert!(
        register.contains(&Finding::StepRenumbered {
            step: n("9"),
            was: n("11")
        }),
        "{report}"
    );
    // The engine matches the new text, so no engine findings anywhere.
    for a in &report.algorithms {
        for f in &a.findings {
            assert!(
                !matches!(
                    f,
                    Finding::StepNotInEngine { .. }
                        | Finding::EngineStepNotInText { .. }
                        | Finding::AlgorithmNotInEngine { .. }
                ),
                "#{}: {f}",
                a.anchor
            );
        }
    }
    // Renamed and new algorithms.
    assert_eq!(
        report.findings("tool-is-visible-to-an-origin"),
        [Finding::AlgorithmRemovedSinceDigest]
    );
    assert_eq!(
        report.findings("tool-is-exposed-to-an-origin"),
        [Finding::AlgorithmAddedSinceDigest]
    );
    // An unchanged step: perform an observation's last step has the same hash.
    assert!(
        !report
            .findings("perform-an-observation")
            .iter()
            .any(|f| matches!(f, Finding::StepChanged { step, .. } if step == &n("7"))),
        "{report}"
    );
    let shown = report.to_string();
    assert!(
        shown.contains("#dom-modelcontext-registertool (line 672)"),
        "{shown}"
    );

    // The new text against its own digest and a matching engine is clean.
    let own = Digest::from_spec(&new, "0023abda");
    let clean = compare(&new, &engine, &own);
    assert!(clean.is_clean(), "{clean}");
}

#[test]
#[ignore = "needs the WebMCP texts: see the file's header"]
fn engine_table_findings() {
    let spec = parse(NEW);
    let digest = Digest::from_spec(&spec, "0023abda");
    let table = engine_matching(&spec);
    let mut engine: Vec<EngineAlgorithm> = Vec::new();
    let labels: Vec<Vec<&str>> = table
        .iter()
        .map(|(_, s)| s.iter().map(String::as_str).collect())
        .collect();
    for ((anchor, _), steps) in table.iter().zip(&labels) {
        match anchor.as_str() {
            // Forget one algorithm, mark another as PR #373 only.
            "perform-an-observation" => {}
            "tool-execute-steps" => engine.push(EngineAlgorithm {
                anchor,
                origin: Origin::Pr373,
                steps,
            }),
            // Drop step 2.1 and claim a step 4 the text does not have.
            "tool-is-exposed-to-an-origin" => engine.push(EngineAlgorithm {
                anchor,
                origin: Origin::Text,
                steps: &["1", "2", "3", "4", "x"],
            }),
            _ => engine.push(EngineAlgorithm {
                anchor,
                origin: Origin::Text,
                steps,
            }),
        }
    }
    engine.push(EngineAlgorithm {
        anchor: "not-in-the-text",
        origin: Origin::Text,
        steps: &["1"],
    });
    engine.push(EngineAlgorithm {
        anchor: "readiness-from-pr-373",
        origin: Origin::Pr373,
        steps: &["1"],
    });
    let report = compare(&spec, &engine, &digest);
    assert_eq!(
        report.findings("perform-an-observation"),
        [Finding::AlgorithmNotInEngine { steps: 12 }]
    );
    assert_eq!(
        report.findings("tool-execute-steps"),
        [Finding::AlgorithmNotMarkedText {
            origins: vec![Origin::Pr373]
        }]
    );
    assert_eq!(
        report.findings("tool-is-exposed-to-an-origin"),
        [
            Finding::BadEngineStep { label: "x".into() },
            Finding::StepNotInEngine { step: n("2.1") },
            Finding::EngineStepNotInText { step: n("4") },
        ]
    );
    assert_eq!(
        report.findings("not-in-the-text"),
        [Finding::EngineAlgorithmNotInText]
    );
    assert_eq!(
        report.outside_text,
        [("readiness-from-pr-373".to_string(), Origin::Pr373)]
    );
    // Grouping: text algorithms in document order, then the others.
    let order: Vec<&str> = report
        .algorithms
        .iter()
        .filter(|a| !a.findings.is_empty())
        .map(|a| a.anchor.as_str())
        .collect();
    assert_eq!(
        order,
        [
            "tool-is-exposed-to-an-origin",
            "tool-execute-steps",
            "perform-an-observation",
            "not-in-the-text"
        ]
    );
}

/// Re-wraps the lines of one step (from its marker to the next blank line) at
/// `width` columns, continuation lines indented `extra` spaces past the marker.
fn rewrap_step(source: &str, line: usize, width: usize, extra: usize) -> String {
    let lines: Vec<&str> = source.lines().collect();
    let start = line - 1;
    let end = (start..lines.len())
        .find(|&k| lines[k].trim().is_empty())
        .unwrap();
    let indent = lines[start].len() - lines[start].trim_start().len();
    let words: Vec<&str> = lines[start..end]
        .iter()
        .flat_map(|l| l.split_whitespace())
        .collect();
    let mut wrapped = Vec::new();
    let mut current = " ".repeat(indent);
    for word in words {
        let fresh = current.trim().is_empty();
        if !fresh && current.len() + 1 + word.len() > width {
            wrapped.push(std::mem::replace(&mut current, " ".repeat(indent + extra)));
        }
        if !current.trim().is_empty() {
            current.push(' ');
        }
        current.push_str(word);
    }
    wrapped.push(current);
    let mut out: Vec<String> = lines[..start].iter().map(|l| l.to_string()).collect();
    out.extend(wrapped);
    out.extend(lines[end..].iter().map(|l| l.to_string()));
    out.join("\n") + "\n"
}

#[test]
#[ignore = "needs the WebMCP texts: see the file's header"]
fn rewrapping_keeps_hashes_and_a_changed_word_does_not() {
    let source = reference(NEW);
    let spec = parse_bs(&source).unwrap();
    let digest = Digest::from_spec(&spec, "x");
    for (anchor, step) in [
        ("dom-modelcontext-registertool", "9"),
        ("dom-modelcontext-gettools", "8.3.5"),
        ("cancel-a-pending-tool-execution", "2"),
    ] {
        let line = spec.algorithm(anchor).unwrap().step(&n(step)).unwrap().line;
        for (width, extra) in [(40, 3), (200, 3), (60, 7)] {
            let rewrapped = rewrap_step(&source, line, width, extra);
            assert_ne!(rewrapped, source);
            let again = parse_bs(&rewrapped).unwrap();
            assert_eq!(
                Digest::from_spec(&again, "x"),
                digest,
                "#{anchor} {step} at width {width}"
            );
        }
        // One changed word changes that step's hash, and only that one.
        let mut lines: Vec<String> = source.lines().map(String::from).collect();
        lines[line - 1].push('x');
        let changed = parse_bs(&(lines.join("\n") + "\n")).unwrap();
        let before = spec.algorithm(anchor).unwrap();
        let after = changed.algorithm(anchor).unwrap();
        for (b, a) in before.steps.iter().zip(&after.steps) {
            assert_eq!(b.number, a.number);
            assert_eq!(
                b.hash == a.hash,
                b.number != n(step),
                "#{anchor} {}",
                b.number
            );
        }
    }
}

#[test]
#[ignore = "needs the WebMCP texts: see the file's header"]
fn reindenting_an_algorithm_keeps_its_hashes() {
    let source = reference(NEW);
    let spec = parse_bs(&source).unwrap();
    let a = spec.algorithm("cancel-a-pending-tool-execution").unwrap();
    let first = a.line; // the <div algorithm> line
    let lines: Vec<&str> = source.lines().collect();
    let last = (first..lines.len())
        .find(|&k| lines[k].trim() == "</div>")
        .unwrap();
    // Two more spaces (one indentation unit) on every line inside the block.
    let shifted: Vec<String> = lines
        .iter()
        .enumerate()
        .map(|(k, l)| {
            if k >= first && k < last && !l.trim().is_empty() {
                format!("  {l}")
            } else {
                l.to_string()
            }
        })
        .collect();
    let again = parse_bs(&(shifted.join("\n") + "\n")).unwrap();
    assert_eq!(
        Digest::from_spec(&again, "x"),
        Digest::from_spec(&spec, "x")
    );
}

#[test]
#[ignore = "needs the WebMCP texts: see the file's header"]
fn digest_round_trips_and_reports_bad_lines() {
    let spec = parse(NEW);
    let digest = Digest::from_spec(&spec, "0023abdadad292a5017093c325894d0146fc4566");
    let text = digest.to_string();
    assert!(
        text.starts_with("speccheck-digest 1 source=0023abdadad292a5017093c325894d0146fc4566\n")
    );
    assert_eq!(Digest::parse(&text).unwrap(), digest);
    let entries = spec
        .algorithms
        .iter()
        .map(|a| a.steps.len() + 1)
        .sum::<usize>();
    assert_eq!(digest.entries.len(), entries);

    let mut lines: Vec<&str> = text.lines().collect();
    lines[5] = "dom-modelcontext-registertool 2.x 0123456789abcdef";
    let err = Digest::parse(&lines.join("\n")).unwrap_err();
    assert_eq!(err.line, 6, "{err}");
    assert!(err.to_string().starts_with("digest line 6:"));
}

/// The committed digest of 0023abda must stay what the parser computes: a
/// change here means the normalization or the step numbering changed, which
/// would make every stored digest report false changes.
#[test]
#[ignore = "needs the WebMCP texts: see the file's header"]
fn committed_digest_matches_the_text() {
    let committed = include_str!("../src/speccheck/webmcp-0023abda.digest");
    let digest = Digest::parse(committed).unwrap();
    assert_eq!(digest.source, "0023abdadad292a5017093c325894d0146fc4566");
    assert_eq!(Digest::from_spec(&parse(NEW), &digest.source), digest);
    assert_eq!(digest.to_string(), committed);
}

/// The engine itself against the text it implements: `webmcp-ref spec-check` on 0023abda has
/// nothing to say.
#[test]
#[ignore = "needs the WebMCP texts: see the file's header"]
fn the_engine_is_in_step_with_its_text() {
    let report = webmcp_ref::speccheck::check(&reference(NEW)).unwrap();
    assert!(report.is_clean(), "{report}");
}
