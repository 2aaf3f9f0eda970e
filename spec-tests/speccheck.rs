//! spec-check without the text: the engine's tables against the committed digest, and the
//! command's exit statuses and messages.

use std::collections::BTreeMap;

use webmcp_ref::speccheck::{digest, engine_tables, Origin, StepNumber};

/// The revision a wptreport names is the commit the committed digest was made from.
#[test]
fn the_reported_revision_is_the_digests_source() {
    let digest = digest().expect("the committed digest parses");
    assert_eq!(digest.source, webmcp_ref::webmcp::TEXT_COMMIT);
}

/// Every algorithm the engine marks as the text's lists exactly the steps the digest of that
/// text has, in its order; every algorithm of the digest is run or named as not run.
#[test]
fn engine_tables_list_the_digests_steps() {
    let digest = digest().expect("the committed digest parses");
    let mut recorded: BTreeMap<&str, Vec<String>> = BTreeMap::new();
    for e in &digest.entries {
        let steps = recorded.entry(e.anchor.as_str()).or_default();
        if !e.step.is_header() {
            steps.push(e.step.to_string());
        }
    }
    let tables = engine_tables();
    for t in tables.iter().filter(|t| t.origin == Origin::Text) {
        let listed: Vec<String> = t.steps.iter().map(|s| s.to_string()).collect();
        assert_eq!(
            Some(&listed),
            recorded.get(t.anchor),
            "#{}: the engine's steps and the digest's",
            t.anchor
        );
        for s in t.steps {
            assert!(s.parse::<StepNumber>().is_ok(), "#{}: {s}", t.anchor);
        }
    }
    for anchor in recorded.keys() {
        assert!(
            tables
                .iter()
                .any(|t| t.anchor == *anchor && matches!(t.origin, Origin::Text | Origin::NotRun)),
            "#{anchor} is in the digest, and the engine neither runs it nor says why not"
        );
    }
}

fn spec_check(args: &[&str]) -> (i32, String, String) {
    let mut all = vec!["spec-check"];
    all.extend_from_slice(args);
    crate::common::webmcp_ref(&all)
}

fn temp(name: &str, text: &str) -> String {
    let dir = std::env::temp_dir().join(format!("webmcp-ref-speccheck-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path.to_string_lossy().into_owned()
}

const METADATA: &str = "<pre class=metadata>\nTitle: t\n</pre>\n\n";

#[test]
fn a_malformed_source_names_its_file_line_and_column() {
    let path = temp(
        "unclosed.bs",
        &format!("{METADATA}  <div algorithm=\"x\">\n1. step\n"),
    );
    let (code, _, err) = spec_check(&[&path]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains(&format!(
            "{path}:5:3: this <div> algorithm block is never closed"
        )),
        "{err}"
    );
}

#[test]
fn a_text_the_engine_does_not_follow_has_findings() {
    // One algorithm of the digest, its second step reworded and a third added; nothing else.
    let path = temp(
        "edited.bs",
        &format!(
            "{METADATA}<div algorithm=\"tool execute steps\">\nTo run the <dfn>tool execute steps</dfn>:\n\n1. one\n1. two\n1. three\n</div>\n"
        ),
    );
    let (code, out, err) = spec_check(&[&path, "--scenarios", "spec-tests/golden/none"]);
    // The scenario folder does not exist: bad input, named.
    assert_eq!(code, 2, "{out}{err}");
    assert!(err.contains("spec-tests/golden/none"), "{err}");

    let (code, out, err) = spec_check(&[&path, "--format", "json"]);
    assert_eq!(code, 1, "{out}{err}");
    // A subtest's name may hold a lone surrogate, written as JSON's escape of it, which
    // serde_json refuses: read as the engine reads JSON.
    let out = webmcp_ref::text::js_string::unescape_lone_surrogates_in_json(&out);
    let report: serde_json::Value = serde_json::from_str(&out).expect("JSON");
    assert_eq!(report["clean"], false);
    let findings = report["algorithms"]
        .as_array()
        .unwrap()
        .iter()
        .find(|a| a["anchor"] == "tool-execute-steps")
        .expect("the edited algorithm is reported")["findings"]
        .to_string();
    assert!(
        findings.contains("step 4: in the engine, not in the text"),
        "{findings}"
    );
    // Algorithms the source lacks are gone from the text, each named.
    assert!(out.contains("dom-modelcontext-registertool"), "{out}");
    let again = report["run_again"].as_array().unwrap();
    let register = again
        .iter()
        .find(|c| c["anchor"] == "dom-modelcontext-registertool")
        .expect("registerTool is to be run again");
    assert!(register["step"].is_null());
    assert!(
        !register["reached_by"].as_array().unwrap().is_empty(),
        "bundled subtests call registerTool()"
    );
}

#[test]
fn writing_a_digest_then_checking_against_it() {
    let source = temp(
        "small.bs",
        &format!(
            "{METADATA}<div algorithm=\"tool execute steps\">\nTo run the <dfn>tool execute steps</dfn>:\n\n1. one\n1. two\n</div>\n"
        ),
    );
    let digest = temp("small.digest", "");
    let (code, out, err) = spec_check(&[&source, "--write-digest", &digest, "--source", "abc"]);
    assert_eq!(code, 0, "{out}{err}");
    let written = std::fs::read_to_string(&digest).unwrap();
    assert!(
        written.starts_with("speccheck-digest 1 source=abc\n"),
        "{written}"
    );
    assert_eq!(
        written
            .lines()
            .filter(|l| l.starts_with("tool-execute-steps "))
            .count(),
        3
    );

    let (code, out, err) = spec_check(&[&source, "--digest", &digest]);
    // The digest agrees with the text, the engine does not (5 steps, and every other
    // algorithm): findings, and no digest findings among them.
    assert_eq!(code, 1, "{out}{err}");
    assert!(!out.contains("since the digest"), "{out}");
    assert!(
        out.contains("step 3: in the engine, not in the text"),
        "{out}"
    );

    let bad = temp("bad.digest", "speccheck-digest 1 source=x\nfoo 1\n");
    let (code, _, err) = spec_check(&[&source, "--digest", &bad]);
    assert_eq!(code, 2);
    assert!(
        err.contains(&format!("{bad}:2:1: expected ANCHOR STEP HASH")),
        "{err}"
    );
}

#[test]
fn unknown_options_are_refused() {
    let (code, _, err) = spec_check(&["--no-such-option"]);
    assert_eq!(code, 2, "{err}");
    let (code, _, err) = spec_check(&["x.bs", "--source", "abc"]);
    assert_eq!(code, 2, "--source needs --write-digest: {err}");
}
